import { parseRetryAfter } from "@agent-ledger/core/parseRetryAfter";

/** An answer's `Retry-After` in whole seconds (rounded up), read by core's one parser; null without a valid one. */
export function retryAfterSeconds(headers: Headers, now: Date): number | null {
  const ms = parseRetryAfter(headers.get("retry-after"), now);
  return ms === null ? null : Math.ceil(ms / 1000);
}
