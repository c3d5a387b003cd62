const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MAX_MS = 7 * 24 * 3600 * 1000;

// The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7), all in GMT:
const IMF_FIXDATE = /^(?:mon|tue|wed|thu|fri|sat|sun), (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
const RFC_850 = /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday), (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
const ASCTIME = /^(?:mon|tue|wed|thu|fri|sat|sun) ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

/** Epoch ms of an HTTP-date, or NaN (not one of the three forms, or no such day). */
function parseHttpDate(value: string, now: Date): number {
  let parts: [year: number, month: string, day: number, h: number, m: number, s: number];
  let match: RegExpExecArray | null;
  if ((match = IMF_FIXDATE.exec(value))) parts = [Number(match[3]), match[2]!, Number(match[1]), Number(match[4]), Number(match[5]), Number(match[6])];
  else if ((match = ASCTIME.exec(value))) parts = [Number(match[6]), match[1]!, Number(match[2]!.trim()), Number(match[3]), Number(match[4]), Number(match[5])];
  else if ((match = RFC_850.exec(value))) {
    // a two-digit year more than 50 years ahead is the most recent past year with those digits (RFC 9110)
    const thisYear = now.getUTCFullYear();
    let year = thisYear - (thisYear % 100) + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    parts = [year, match[2]!, Number(match[1]), Number(match[4]), Number(match[5]), Number(match[6])];
  } else return Number.NaN;
  const [year, monthName, day, h, m, s] = parts;
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0 || h > 23 || m > 59 || s > 60) return Number.NaN;
  const at = Date.UTC(year, month, day, h, m, Math.min(s, 59));
  return new Date(at).getUTCDate() === day ? at : Number.NaN; // 31 Feb does not roll over into March
}

/**
 * `Retry-After` (delta seconds, or an HTTP-date in any of its three forms, always GMT) → milliseconds from `now`,
 * capped at a week; null when absent or invalid. The one parser: the worker's deliveries and the API client use it.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_MS);
  const at = parseHttpDate(trimmed, now);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_MS);
}
