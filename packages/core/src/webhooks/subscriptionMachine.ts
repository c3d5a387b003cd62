import { LedgerError } from "../errors.ts";
import type { SubscriptionStatus } from "./types.ts";

/** Consecutive failed delivery attempts after which an active subscription is disabled (spec §8). */
export const MAX_CONSECUTIVE_FAILURES = 5;
/** A verify token is valid this long after creation (spec §8). */
export const VERIFY_TOKEN_TTL_MS = 24 * 3600 * 1000;

export type SubscriptionTrigger =
  | { type: "verify"; tokenMatches: boolean; now: Date; verifyTokenExpiresAt: Date }
  | { type: "pause" }
  | { type: "receiver_gone" }
  | { type: "delivery_failed" }
  | { type: "delivery_succeeded" }
  | { type: "resume" }
  | { type: "delete" };

export interface SubscriptionState {
  status: SubscriptionStatus;
  consecutiveFailures: number;
}

export class SubscriptionTransitionError extends LedgerError {
  constructor(code: "invalid_verify_token" | "verify_token_expired" | "invalid_state" | "not_found", message: string) {
    super(code, message);
    this.name = "SubscriptionTransitionError";
  }
}

/**
 * The subscription state machine of spec §3, pure. Returns the next state or throws a typed error
 * (`invalid_state` for a trigger the current status does not accept). "Paused" is stored as `paused`;
 * resume re-arms to `active` with `consecutive_failures = 0`; deleted is terminal.
 */
export function transitionSubscription(state: SubscriptionState, trigger: SubscriptionTrigger): SubscriptionState {
  const { status } = state;
  if (status === "deleted") throw new SubscriptionTransitionError("not_found", "subscription is deleted");
  switch (trigger.type) {
    case "verify":
      if (status === "active") return state; // idempotent: verifying twice is fine
      if (status !== "pending_verify") throw new SubscriptionTransitionError("invalid_state", `cannot verify a ${status} subscription`);
      if (!trigger.tokenMatches) throw new SubscriptionTransitionError("invalid_verify_token", "verify_token does not match");
      if (trigger.now.getTime() > trigger.verifyTokenExpiresAt.getTime())
        throw new SubscriptionTransitionError("verify_token_expired", "verify_token has expired (24 h)");
      return { status: "active", consecutiveFailures: 0 };
    case "pause":
      if (status === "paused") return state;
      if (status !== "active") throw new SubscriptionTransitionError("invalid_state", `cannot pause a ${status} subscription`);
      return { ...state, status: "paused" };
    case "receiver_gone":
      return status === "active" ? { ...state, status: "paused" } : state;
    case "delivery_failed": {
      if (status !== "active") return state;
      const consecutiveFailures = state.consecutiveFailures + 1;
      return { status: consecutiveFailures >= MAX_CONSECUTIVE_FAILURES ? "disabled_by_failures" : "active", consecutiveFailures };
    }
    case "delivery_succeeded":
      return { ...state, consecutiveFailures: 0 };
    case "resume":
      if (status === "active") return { status, consecutiveFailures: 0 };
      if (status !== "paused" && status !== "disabled_by_failures")
        throw new SubscriptionTransitionError("invalid_state", `cannot resume a ${status} subscription`);
      return { status: "active", consecutiveFailures: 0 };
    case "delete":
      return { ...state, status: "deleted" };
  }
}
