export type CapViolation = "per_call_cap_exceeded" | "spend_cap_exceeded";

/**
 * Whether `amount` fits the session's caps: at most `perCallCap` per call, and the lifetime total
 * (`used` + in-flight `reserved` + `amount`) at most `spendCap`. Null when it fits. The database applies the
 * same rule atomically; this names the reason when it refuses.
 */
export function checkPaymentCaps(p: { amount: bigint; perCallCap: bigint; spendCap: bigint; used: bigint; reserved: bigint }): CapViolation | null {
  if (p.amount > p.perCallCap) return "per_call_cap_exceeded";
  if (p.used + p.reserved + p.amount > p.spendCap) return "spend_cap_exceeded";
  return null;
}
