import { ApiError } from "../errors.ts";

const INT8_MAX = 9223372036854775807n;

/** An agent_events id: decimal digits only, 1 … 2^63−1 (no sign, exponent, spaces or leading zeros). */
export function parseEventId(value: string): bigint {
  if (!/^[1-9][0-9]{0,18}$/.test(value) || BigInt(value) > INT8_MAX) {
    throw new ApiError("invalid_id", "event id must be a positive integer below 2^63");
  }
  return BigInt(value);
}
