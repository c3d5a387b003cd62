import { isPlausibleEntityId } from "../services/getEntityDetail.ts";

const INT8_MAX = 9223372036854775807n;
const MAX_UINT256 = 2n ** 256n - 1n;

/** Feed-specific request errors (REST body `{ error: { code, message } }`; GraphQL `extensions.code`). */
export type FeedErrorCode = "feed_disabled" | "invalid_last_event_id" | "invalid_id" | "invalid_amount" | "not_found" | "feed_unavailable";

export const FEED_ERROR_STATUS: Record<FeedErrorCode, number> = {
  feed_disabled: 404,
  invalid_last_event_id: 400,
  invalid_id: 400,
  invalid_amount: 400,
  not_found: 404,
  feed_unavailable: 503,
};

export class FeedError extends Error {
  readonly code: FeedErrorCode;
  constructor(code: FeedErrorCode, message: string) {
    super(message);
    this.name = "FeedError";
    this.code = code;
  }
}

/** A resume position: a plain decimal integer 0 … 2^63−1 (0 = replay from the first row); null when absent or empty. */
export function parseResumeId(value: string | null | undefined, code: "invalid_last_event_id" | "invalid_id"): bigint | null {
  if (value === null || value === undefined || value === "") return null;
  if (!/^(0|[1-9][0-9]{0,18})$/.test(value) || BigInt(value) > INT8_MAX) {
    throw new FeedError(code, `${code === "invalid_id" ? "afterId" : "Last-Event-ID"} must be a non-negative integer below 2^63 (an event id)`);
  }
  return BigInt(value);
}

/** A uint256 as a decimal string (no sign, exponent, spaces or leading zeros); null when absent. */
export function parseMinAmount(value: string | null): bigint | null {
  if (value === null) return null;
  if (!/^(0|[1-9][0-9]{0,77})$/.test(value) || BigInt(value) > MAX_UINT256) {
    throw new FeedError("invalid_amount", "min_amount_wei must be a non-negative integer below 2^256 as a decimal string");
  }
  return BigInt(value);
}

/** An agent filter value that could name an entity (existence is checked against the database separately). */
export function checkAgentId(value: string | null): string | null {
  if (value === null) return null;
  if (!isPlausibleEntityId(value)) throw new FeedError("not_found", "no watched agent or service with that id");
  return value;
}
