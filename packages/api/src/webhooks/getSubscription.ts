import { subscriptionJson, SUB_COLUMNS } from "./subscriptionJson.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/** One of the owner's subscriptions with its delivery counts by status; 404 when missing, deleted, or not theirs. */
export async function getSubscription(ctx: WebhookContext, owner: string, id: string) {
  if (!/^whs_[A-Za-z0-9_-]{8,64}$/.test(id)) throw new WebhookError("not_found", "no such webhook");
  const { rows } = await ctx.db.query(`SELECT ${SUB_COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND owner_user_id = $2 AND status <> 'deleted'`, [
    id,
    owner,
  ]);
  if (!rows[0]) throw new WebhookError("not_found", "no such webhook");
  const counts = await ctx.db.query("SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 GROUP BY status", [id]);
  const deliveries = { pending: 0, retrying: 0, succeeded: 0, dead: 0, total: 0 };
  for (const r of counts.rows) {
    deliveries[r.status as "pending"] = r.n;
    deliveries.total += r.n;
  }
  return { ...subscriptionJson(rows[0]), deliveries };
}
