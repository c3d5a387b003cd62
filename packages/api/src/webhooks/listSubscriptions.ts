import { subscriptionJson, SUB_COLUMNS } from "./subscriptionJson.ts";
import type { WebhookContext } from "./webhookContext.ts";

/** The owner's non-deleted subscriptions, newest first. */
export async function listSubscriptions(ctx: WebhookContext, owner: string) {
  const { rows } = await ctx.db.query(
    `SELECT ${SUB_COLUMNS} FROM webhook_subscriptions WHERE owner_user_id = $1 AND status <> 'deleted' ORDER BY created_at DESC, id`,
    [owner],
  );
  return { items: rows.map(subscriptionJson) };
}
