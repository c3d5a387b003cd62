import { getBackoffDelay } from "@agent-ledger/core";
import { Redis } from "ioredis";

export interface RedisPingOptions {
  url: string;
  /** Connect and PING timeout (default 1 s). */
  timeoutMs?: number;
}

export interface RedisPing {
  /** Resolves with the round-trip time in ms, or rejects with the reason Redis is not reachable. */
  ping(): Promise<number>;
  close(): void;
}

/**
 * A PING with a short timeout over one long-lived ioredis connection (connected lazily at the first ping, reconnecting
 * in the background). Commands never wait in an offline queue longer than a connection attempt, so an unreachable
 * Redis fails the probe within `timeoutMs`.
 */
export function createRedisPing(options: RedisPingOptions): RedisPing {
  const timeoutMs = options.timeoutMs ?? 1_000;
  let lastError: string | null = null;
  const client = new Redis(options.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => getBackoffDelay(attempt, { baseMs: 200, maxMs: 2_000, random: Math.random() }),
    connectionName: "agent-ledger-api-readyz",
  });
  client.on("error", (error: Error) => {
    lastError = error.message;
  });
  client.on("ready", () => {
    lastError = null;
  });

  return {
    async ping(): Promise<number> {
      const started = performance.now();
      if (client.status === "wait") client.connect().catch(() => {}); // failures surface through the ping below
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client.ping(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no PONG within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (error) {
        // ioredis reports a refused connection as "Reached the max retries per request limit"; the connection's own
        // error ("connect ECONNREFUSED 127.0.0.1:6390") says more.
        const message = (error as Error).message;
        throw new Error(lastError && /max retries|Stream isn't writeable|Connection is closed/i.test(message) ? lastError : message);
      } finally {
        clearTimeout(timer);
      }
      return performance.now() - started;
    },
    close(): void {
      client.disconnect();
    },
  };
}
