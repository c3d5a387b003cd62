import { inTransaction } from "@agent-ledger/db";
import { DELIVERY_COLUMNS, deliveryJson } from "./deliveryJson.ts";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import { DELIVERIES_CHANNEL } from "./webhookConstants.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/**
 * One more attempt now, same delivery id. Refused (409 delivery_succeeded) once the delivery got a 2xx: a
 * repeated Svc-Delivery tells the receiver the earlier attempt was not 2xx (spec §6), so it would drop it.
 */
export async function redeliver(ctx: WebhookContext, owner: string, id: string, deliveryId: string) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(deliveryId)) throw new WebhookError("not_found", "no such delivery");
  return inTransaction(ctx.db, async (c) => {
    await lockOwnedSubscription(c, owner, id);
    const { rows } = await c.query(
      `UPDATE webhook_deliveries SET status = 'retrying', next_attempt_at = $3, completed_at = NULL, updated_at = now()
       WHERE id = $1 AND subscription_id = $2 AND status <> 'succeeded' RETURNING ${DELIVERY_COLUMNS}`,
      [deliveryId, id, ctx.now()],
    );
    if (!rows[0]) {
      const exists = await c.query("SELECT status FROM webhook_deliveries WHERE id = $1 AND subscription_id = $2", [deliveryId, id]);
      if (exists.rows[0]?.status === "succeeded") {
        throw new WebhookError(
          "delivery_succeeded",
          "this delivery already got a 2xx; sending its Svc-Delivery id again would tell the receiver it had not (use recover or test instead)",
        );
      }
      throw new WebhookError("not_found", "no such delivery");
    }
    await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, deliveryId]);
    return { ok: true as const, delivery: deliveryJson(rows[0]) };
  });
}
