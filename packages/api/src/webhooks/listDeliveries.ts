import { encodeDeliveryCursor } from "./deliveryCursor.ts";
import { DELIVERY_COLUMNS, deliveryJson } from "./deliveryJson.ts";
import { getSubscription } from "./getSubscription.ts";
import type { WebhookContext } from "./webhookContext.ts";
import type { DeliveryPage } from "./webhookInputs.ts";

/**
 * A subscription's delivery log, newest first, `limit` per page with a cursor to the next, only `status` when given
 * (parsed by DELIVERIES_QUERY; the keyset cursor works the same over the filtered rows).
 */
export async function listDeliveries(ctx: WebhookContext, owner: string, id: string, { limit, cursor, status = null }: DeliveryPage) {
  await getSubscription(ctx, owner, id); // 404 unless it is the caller's
  const { rows } = await ctx.db.query(
    `SELECT ${DELIVERY_COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM webhook_deliveries WHERE subscription_id = $1
       AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
       AND ($5::text IS NULL OR status = $5)
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [id, cursor?.createdAt ?? null, cursor?.id ?? null, limit + 1, status],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(deliveryJson), next_cursor: rows.length > limit && last ? encodeDeliveryCursor(last.cursor_at, last.id) : null };
}
