import { SubscriptionTransitionError, transitionSubscription } from "@agent-ledger/core";
import { WebhookError } from "./WebhookError.ts";

/** core's transitionSubscription, its refusals as the API's errors (404 not_found, 400/409 per code). */
export function transitionOrThrow(...args: Parameters<typeof transitionSubscription>): ReturnType<typeof transitionSubscription> {
  try {
    return transitionSubscription(...args);
  } catch (error) {
    if (error instanceof SubscriptionTransitionError) {
      if (error.code === "not_found") throw new WebhookError("not_found", "no such webhook");
      throw new WebhookError(error.code as "invalid_verify_token" | "verify_token_expired" | "invalid_state", error.shortMessage);
    }
    throw error;
  }
}
