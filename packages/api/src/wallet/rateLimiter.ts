import { consumeRateLimit, type RateWindow } from "@agent-ledger/core";
import { WalletError } from "./WalletError.ts";

export interface RateLimiter {
  /** Counts a hit for `key`; throws 429 `rate_limited` (with Retry-After) when over the limit. */
  hit(key: string, nowMs: number): void;
}

/** In-process fixed-window limiter (per API process; good enough for abuse of code entry and start). */
export function createRateLimiter(limit: number, windowMs: number, what: string): RateLimiter {
  const windows = new Map<string, RateWindow>();
  let lastPrune = 0;
  return {
    hit(key, nowMs) {
      if (limit <= 0) return;
      if (nowMs - lastPrune > windowMs) {
        for (const [k, w] of windows) if (nowMs - w.start >= windowMs) windows.delete(k);
        lastPrune = nowMs;
      }
      const decision = consumeRateLimit(windows.get(key), nowMs, limit, windowMs);
      windows.set(key, decision.window);
      if (!decision.allowed) {
        throw new WalletError("rate_limited", `too many ${what} requests; retry in ${decision.retryAfterSeconds} s`, { "retry-after": String(decision.retryAfterSeconds) });
      }
    },
  };
}
