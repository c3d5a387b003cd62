import type pg from "pg";
import { SUB_COLUMNS, type SubscriptionRow } from "./subscriptionJson.ts";
import { WebhookError } from "./WebhookError.ts";

/** The owner's live subscription row, locked for update; 404 when missing, deleted, or not theirs. */
export async function lockOwnedSubscription(c: pg.PoolClient, owner: string, id: string): Promise<SubscriptionRow> {
  if (!/^whs_[A-Za-z0-9_-]{8,64}$/.test(id)) throw new WebhookError("not_found", "no such webhook");
  const { rows } = await c.query(`SELECT ${SUB_COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND owner_user_id = $2 AND status <> 'deleted' FOR UPDATE`, [
    id,
    owner,
  ]);
  if (!rows[0]) throw new WebhookError("not_found", "no such webhook");
  return rows[0];
}
