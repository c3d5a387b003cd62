/** What one HTTP attempt at a delivery came to (spec §6 "Outcome rules per delivery attempt"). */
export type AttemptResult = { type: "response"; status: number } | { type: "network_error" } | { type: "timeout" };

export type AttemptOutcome =
  /** 2xx: delivered; the subscription's consecutive failures reset. */
  | "success"
  /** 410: the receiver is gone: pause the subscription; this delivery is dead. */
  | "gone"
  /** 429, 5xx, network error, timeout: try again later; counts as a failure. */
  | "retry"
  /** any other status (1xx, 3xx — redirects are not followed — and 4xx): dead, not a failure. */
  | "reject";

export function classifyOutcome(result: AttemptResult): AttemptOutcome {
  if (result.type !== "response") return "retry";
  const { status } = result;
  if (status >= 200 && status < 300) return "success";
  if (status === 410) return "gone";
  if (status === 429 || (status >= 500 && status < 600)) return "retry";
  return "reject";
}
