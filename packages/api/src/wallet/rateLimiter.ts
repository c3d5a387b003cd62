import type { IncomingMessage } from "node:http";
import { clientRateKey, getBackoffDelay } from "@agent-ledger/core";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { WalletError } from "./WalletError.ts";

/**
 * The wallet's rate limits (docs/wallet.md § Rate limits), each a fixed 60-second window per key:
 * - `start`: device/start per client address (creates a pairing row without a login);
 * - `code`: every request carrying a device code (lookup, approve-init, approve-finalize), one budget per client address;
 * - `codeUser`: the same requests per signed-in passkey user;
 * - `options`: webauthn register/options + auth/options per client address (each stores a challenge row);
 * - `relay`: the sponsoring relay per client address.
 */
export type LimitName = "start" | "code" | "codeUser" | "options" | "relay";

export interface RateLimitConfig {
  /** Redis holding the counters (REDIS_URL): every API process shares them. */
  redisUrl: string;
  /** Prefix of every counter key (RATE_LIMIT_PREFIX); processes sharing a budget use the same one. */
  keyPrefix: string;
  /** Proxies in front of the API whose X-Forwarded-For entry is believed (TRUST_PROXY; 0 = the socket address). */
  trustProxy: number;
  /** Requests per minute and key for each limit (0 = unlimited). */
  perMinute: Record<LimitName, number>;
  /** Redis connect and command timeout (default 1 s). */
  timeoutMs?: number;
}

export interface RateLimits {
  /** The client-address key of a request (TRUST_PROXY applied; IPv6 by /64). */
  clientKey(req: IncomingMessage): string;
  /** Counts one request of `key` against `name`; throws 429 `rate_limited` (Retry-After) over the limit. */
  consume(name: LimitName, key: string): Promise<void>;
  close(): void;
}

const WINDOW_SECONDS = 60;
const WHAT: Record<LimitName, string> = {
  start: "device/start",
  code: "device code",
  codeUser: "device code",
  options: "passkey challenge",
  relay: "relay",
};
/**
 * Limits that guard a device code answer 503 `rate_limit_unavailable` while Redis is unreachable (a guess must never go
 * uncounted); the others fall back to a per-process in-memory window of the same size, so passkey sign-in, pairing
 * start and the relay keep working (and stay bounded per process).
 */
const FAIL_CLOSED: ReadonlySet<LimitName> = new Set(["code", "codeUser"]);
const LOG_EVERY_MS = 10_000;

export function createRateLimits(config: RateLimitConfig, log: Logger): RateLimits {
  const timeoutMs = config.timeoutMs ?? 1_000;
  let redis: Redis | null = null;
  let limiters: Map<LimitName, RateLimiterRedis> | null = null;
  let lastLogged = 0;

  function limiter(name: LimitName): RateLimiterRedis {
    if (!redis || !limiters) {
      // connected at the first limited request; commands never wait longer than timeoutMs for an unreachable Redis
      redis = new Redis(config.redisUrl, {
        lazyConnect: true,
        connectTimeout: timeoutMs,
        commandTimeout: timeoutMs,
        maxRetriesPerRequest: 0,
        retryStrategy: (attempt) => getBackoffDelay(attempt, { baseMs: 200, maxMs: 2_000, random: Math.random() }),
        connectionName: "agent-ledger-api-ratelimit",
      });
      redis.on("error", () => {}); // reported per request below (throttled)
      limiters = new Map();
      for (const n of Object.keys(config.perMinute) as LimitName[]) {
        const points = config.perMinute[n];
        const keyPrefix = `${config.keyPrefix}:${n}`;
        limiters.set(
          n,
          new RateLimiterRedis({
            storeClient: redis,
            keyPrefix,
            points,
            duration: WINDOW_SECONDS,
            insuranceLimiter: FAIL_CLOSED.has(n) ? undefined : new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS }),
          }),
        );
      }
    }
    return limiters.get(name)!;
  }

  return {
    clientKey(req) {
      return clientRateKey(req.socket.remoteAddress, req.headers["x-forwarded-for"], config.trustProxy);
    },
    async consume(name, key) {
      if (!(config.perMinute[name] > 0)) return;
      try {
        await limiter(name).consume(key);
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
          throw new WalletError("rate_limited", `too many ${WHAT[name]} requests; retry in ${seconds} s`, { "retry-after": String(seconds) });
        }
        const now = Date.now();
        if (now - lastLogged >= LOG_EVERY_MS) {
          lastLogged = now;
          log.error({ err: error instanceof Error ? error.message : String(error), limit: name }, "rate limits: Redis unreachable");
        }
        throw new WalletError("rate_limit_unavailable", "the rate limiter is unavailable; try again shortly", { "retry-after": "5" });
      }
    },
    close() {
      redis?.disconnect();
    },
  };
}
