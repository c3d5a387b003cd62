/** Delay before the next attempt after attempt n failed (spec §6): 30 s, 2 m, 10 m, 30 m, 2 h, 6 h, 12 h. */
export const RETRY_SCHEDULE_MS = [30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000] as const;
/** Attempt 8 is the last: after it fails the delivery is dead. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/**
 * Milliseconds to wait after failed attempt `attempt` (1-based), with ±20 % jitter from `random`
 * in [0, 1), honouring a `Retry-After` that asks for longer; null when no attempt is left.
 */
export function getRetryDelay(attempt: number, options: { random: number; retryAfterMs?: number | null }): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const base = RETRY_SCHEDULE_MS[attempt - 1];
  if (base === undefined) return null;
  const jitter = 0.8 + 0.4 * Math.min(Math.max(options.random, 0), 1);
  const delay = Math.round(base * jitter);
  return options.retryAfterMs && options.retryAfterMs > delay ? options.retryAfterMs : delay;
}
