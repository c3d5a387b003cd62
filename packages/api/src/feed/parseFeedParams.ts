import { ApiError } from "../errors.ts";
import { isPlausibleEntityId } from "../services/getEntityDetail.ts";

const INT8_MAX = 9223372036854775807n;
const MAX_UINT256 = 2n ** 256n - 1n;

/** A request error of the live feed (REST `{ error: { code, message } }`, GraphQL `extensions.code`): its ApiError. */
export class FeedError extends ApiError {
  override name = "FeedError";
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
