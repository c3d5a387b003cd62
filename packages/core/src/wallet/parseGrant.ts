import { MAX_SESSION_TTL_SECONDS, MIN_SESSION_TTL_SECONDS } from "./constants.ts";
import { parsePositiveWei } from "./parsePositiveWei.ts";

export type Grant = { spendCap: bigint; perCallCap: bigint; ttlSeconds: number };
export type GrantResult = { ok: true; grant: Grant } | { ok: false; code: "invalid_cap" | "invalid_ttl"; message: string };

/** Validates what a person grants an agent at approve-init: caps (positive, per call ≤ lifetime) and session TTL. */
export function parseGrant(input: { spend_cap_wei?: unknown; per_call_cap_wei?: unknown; session_ttl_seconds?: unknown }): GrantResult {
  const spendCap = parsePositiveWei(input.spend_cap_wei);
  if (spendCap === null) return { ok: false, code: "invalid_cap", message: "spend_cap_wei must be a positive integer string (base units)" };
  const perCallCap = parsePositiveWei(input.per_call_cap_wei);
  if (perCallCap === null) return { ok: false, code: "invalid_cap", message: "per_call_cap_wei must be a positive integer string (base units)" };
  if (perCallCap > spendCap) return { ok: false, code: "invalid_cap", message: "per_call_cap_wei cannot exceed spend_cap_wei" };
  const ttl = input.session_ttl_seconds;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < MIN_SESSION_TTL_SECONDS || ttl > MAX_SESSION_TTL_SECONDS) {
    return { ok: false, code: "invalid_ttl", message: `session_ttl_seconds must be an integer from ${MIN_SESSION_TTL_SECONDS} to ${MAX_SESSION_TTL_SECONDS}` };
  }
  return { ok: true, grant: { spendCap, perCallCap, ttlSeconds: ttl } };
}
