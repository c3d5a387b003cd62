import { randomUUID } from "node:crypto";
import { inTransaction } from "@agent-ledger/db";
import { DELIVERY_COLUMNS, deliveryJson } from "./deliveryJson.ts";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import { DELIVERIES_CHANNEL } from "./webhookConstants.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/** POST /test: a signed `svc.webhook.test` delivery through the worker (same signing, headers, retries). Active only. */
export async function sendTestDelivery(ctx: WebhookContext, owner: string, id: string) {
  return inTransaction(ctx.db, async (c) => {
    const row = await lockOwnedSubscription(c, owner, id);
    if (row.status !== "active") throw new WebhookError("invalid_state", `cannot send a test event to a ${row.status} subscription`);
    const { rows } = await c.query(
      `INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, next_attempt_at) VALUES ($1, $2, NULL, 'test', 'pending', $3)
       RETURNING ${DELIVERY_COLUMNS}`,
      [randomUUID(), id, ctx.now()],
    );
    await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, rows[0].id]);
    return { ok: true as const, delivery_id: rows[0].id as string, delivery: deliveryJson(rows[0]) };
  });
}
