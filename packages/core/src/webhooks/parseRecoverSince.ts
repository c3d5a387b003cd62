import { LedgerError } from "../errors.ts";

/** How far back `POST /api/webhooks/{id}/recover` may reach: 7 days before `now`. */
export const RECOVER_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

export class RecoverSinceError extends LedgerError {
  constructor(code: "invalid_since" | "since_too_old", message: string) {
    super(code, message);
    this.name = "RecoverSinceError";
  }
}

// A full ISO 8601 / RFC 3339 date-time with an explicit offset: never a local time the server would have to guess.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The `since` of a recovery request, checked against `now`: an ISO 8601 date-time with a `Z` or `±hh:mm` offset,
 * a real calendar instant, at most RECOVER_MAX_AGE_MS (7 days) before `now`. An older one is refused
 * (`since_too_old`), not clamped: a caller asking for 8 days must not believe it got them. A `since` in the
 * future is accepted (it matches nothing yet).
 */
export function parseRecoverSince(since: unknown, now: Date): Date {
  if (typeof since !== "string" || since.length > 40)
    throw new RecoverSinceError("invalid_since", "since must be an ISO 8601 date-time with an offset, e.g. 2026-11-25T03:00:00Z");
  const m = ISO_DATE_TIME.exec(since);
  if (!m) throw new RecoverSinceError("invalid_since", "since must be an ISO 8601 date-time with an offset, e.g. 2026-11-25T03:00:00Z");
  const [, y, mo, d, h, mi, s] = m;
  const at = new Date(since);
  // Date accepts 2026-02-30 and 24:00 by rolling over: compare the fields with the UTC date of the same wall time.
  const wall = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0)));
  if (
    Number.isNaN(at.getTime()) ||
    wall.getUTCFullYear() !== Number(y) ||
    wall.getUTCMonth() !== Number(mo) - 1 ||
    wall.getUTCDate() !== Number(d) ||
    wall.getUTCHours() !== Number(h) ||
    wall.getUTCMinutes() !== Number(mi) ||
    Number(s ?? 0) > 59
  ) {
    throw new RecoverSinceError("invalid_since", `since "${since}" is not a valid date-time`);
  }
  if (now.getTime() - at.getTime() > RECOVER_MAX_AGE_MS) {
    throw new RecoverSinceError(
      "since_too_old",
      `since may be at most 7 days ago (earliest now: ${new Date(now.getTime() - RECOVER_MAX_AGE_MS).toISOString()})`,
    );
  }
  return at;
}
