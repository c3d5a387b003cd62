export type RateWindow = { start: number; count: number };
export type RateDecision = { allowed: boolean; window: RateWindow; retryAfterSeconds: number };

/** Fixed-window rate limit step: `limit` hits per `windowMs`; returns the next window state for the key. */
export function consumeRateLimit(window: RateWindow | undefined, nowMs: number, limit: number, windowMs: number): RateDecision {
  const current = window && nowMs - window.start < windowMs ? window : { start: nowMs, count: 0 };
  if (current.count >= limit) {
    return { allowed: false, window: current, retryAfterSeconds: Math.max(1, Math.ceil((current.start + windowMs - nowMs) / 1000)) };
  }
  return { allowed: true, window: { start: current.start, count: current.count + 1 }, retryAfterSeconds: 0 };
}
