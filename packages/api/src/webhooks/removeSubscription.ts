import { transitionSubscription } from "@agent-ledger/core";
import { inTransaction } from "@agent-ledger/db";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import { setSubscriptionState } from "./setSubscriptionState.ts";
import type { WebhookContext } from "./webhookContext.ts";

/** Deleted by its owner (soft: the row stays, invisible to every read). */
export async function removeSubscription(ctx: WebhookContext, owner: string, id: string) {
  return inTransaction(ctx.db, async (c) => {
    const row = await lockOwnedSubscription(c, owner, id);
    const next = transitionSubscription({ status: row.status, consecutiveFailures: row.consecutive_failures }, { type: "delete" });
    await setSubscriptionState(c, id, next.status, row.consecutive_failures, "deleted by owner");
    return { ok: true as const, id, status: "deleted" as const };
  });
}
