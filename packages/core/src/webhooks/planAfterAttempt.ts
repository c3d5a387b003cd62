import { classifyOutcome, type AttemptOutcome, type AttemptResult } from "./classifyOutcome.ts";
import { getRetryDelay } from "./getRetryDelay.ts";
import { transitionSubscription, type SubscriptionState } from "./subscriptionMachine.ts";
import type { DeliveryStatus } from "./types.ts";

export interface AttemptPlan {
  outcome: AttemptOutcome;
  delivery: { status: DeliveryStatus; nextAttemptAt: Date | null };
  subscription: SubscriptionState;
}

/**
 * Everything that follows from one attempt: the delivery's next status and time, and the
 * subscription's new state. `attempt` is the number of the attempt just made (1-based).
 * A retryable failure counts toward `consecutive_failures`; other 4xx do not (spec §6).
 * A subscription deleted while the attempt was in flight is left as it is (deleted is terminal) and
 * the delivery is not retried.
 */
export function planAfterAttempt(input: {
  attempt: number;
  result: AttemptResult;
  retryAfterMs?: number | null;
  subscription: SubscriptionState;
  now: Date;
  random: number;
}): AttemptPlan {
  const outcome = classifyOutcome(input.result);
  if (input.subscription.status === "deleted") {
    return { outcome, delivery: { status: outcome === "success" ? "succeeded" : "dead", nextAttemptAt: null }, subscription: input.subscription };
  }
  switch (outcome) {
    case "success":
      return {
        outcome,
        delivery: { status: "succeeded", nextAttemptAt: null },
        subscription: transitionSubscription(input.subscription, { type: "delivery_succeeded" }),
      };
    case "gone":
      return {
        outcome,
        delivery: { status: "dead", nextAttemptAt: null },
        subscription: transitionSubscription(input.subscription, { type: "receiver_gone" }),
      };
    case "reject":
      return { outcome, delivery: { status: "dead", nextAttemptAt: null }, subscription: input.subscription };
    case "retry": {
      const delay = getRetryDelay(input.attempt, { random: input.random, retryAfterMs: input.retryAfterMs });
      const subscription = transitionSubscription(input.subscription, { type: "delivery_failed" });
      return delay === null
        ? { outcome, delivery: { status: "dead", nextAttemptAt: null }, subscription }
        : { outcome, delivery: { status: "retrying", nextAttemptAt: new Date(input.now.getTime() + delay) }, subscription };
    }
  }
}
