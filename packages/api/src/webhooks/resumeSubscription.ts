import { inTransaction } from "@agent-ledger/db";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import { setSubscriptionState } from "./setSubscriptionState.ts";
import { subscriptionJson } from "./subscriptionJson.ts";
import { transitionOrThrow } from "./transitionOrThrow.ts";
import { DELIVERIES_CHANNEL } from "./webhookConstants.ts";
import type { WebhookContext } from "./webhookContext.ts";

/** Resumed (from paused or disabled): deliveries held meanwhile become due now and are announced to the worker. */
export async function resumeSubscription(ctx: WebhookContext, owner: string, id: string) {
  return inTransaction(ctx.db, async (c) => {
    const row = await lockOwnedSubscription(c, owner, id);
    const next = transitionOrThrow({ status: row.status, consecutiveFailures: row.consecutive_failures }, { type: "resume" });
    const updated = await setSubscriptionState(c, id, next.status, next.consecutiveFailures, null);
    // Deliveries held while it was paused/disabled become due now (and are announced, not left to the minute job).
    const held = await c.query(
      "UPDATE webhook_deliveries SET next_attempt_at = LEAST(next_attempt_at, $2), updated_at = now() WHERE subscription_id = $1 AND status IN ('pending','retrying') RETURNING id",
      [id, ctx.now()],
    );
    for (const d of held.rows) await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, d.id]);
    return { ok: true as const, ...subscriptionJson(updated) };
  });
}
