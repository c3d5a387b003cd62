import { inTransaction } from "@agent-ledger/db";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import { setSubscriptionState } from "./setSubscriptionState.ts";
import { subscriptionJson } from "./subscriptionJson.ts";
import { transitionOrThrow } from "./transitionOrThrow.ts";
import type { WebhookContext } from "./webhookContext.ts";

/** Paused by its owner: deliveries are held until it is resumed. */
export async function pauseSubscription(ctx: WebhookContext, owner: string, id: string) {
  return inTransaction(ctx.db, async (c) => {
    const row = await lockOwnedSubscription(c, owner, id);
    const next = transitionOrThrow({ status: row.status, consecutiveFailures: row.consecutive_failures }, { type: "pause" });
    return { ok: true as const, ...subscriptionJson(await setSubscriptionState(c, id, next.status, next.consecutiveFailures, "paused by owner")) };
  });
}
