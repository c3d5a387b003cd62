export type PollDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Whether a device may poll now: at least `intervalSeconds` since its last poll, less `toleranceMs` for
 * timer jitter. Otherwise `slow_down` with the seconds left (rounded up, at least 1).
 */
export function decidePoll(lastPolledAt: Date | null, intervalSeconds: number, now: Date, toleranceMs = 500): PollDecision {
  if (!lastPolledAt || intervalSeconds <= 0) return { ok: true };
  const wait = lastPolledAt.getTime() + intervalSeconds * 1000 - toleranceMs - now.getTime();
  if (wait <= 0) return { ok: true };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((wait + toleranceMs) / 1000)) };
}
