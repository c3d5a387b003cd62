/**
 * Exponential backoff with "equal jitter": attempt 1 waits about `baseMs`, each next attempt twice as
 * long, capped at `maxMs`; the delay is drawn from [d/2, d] with `random` in [0, 1).
 */
export function getBackoffDelay(attempt: number, options: { baseMs?: number; maxMs?: number; random?: number } = {}): number {
  const { baseMs = 250, maxMs = 30_000, random = 0.5 } = options;
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  return Math.round(exp / 2 + (exp / 2) * Math.min(Math.max(random, 0), 1));
}
