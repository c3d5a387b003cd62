/** `Retry-After` (delta seconds or an HTTP date) → milliseconds from `now`; null when absent or invalid. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), 7 * 24 * 3600) * 1000;
  if (!/[a-z]/i.test(trimmed)) return null; // "-5", "1.5": not a delta and not an HTTP date
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
