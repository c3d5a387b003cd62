import { decodeDeliveryCursor, encodeDeliveryCursor } from "./deliveryCursor.ts";
import { DELIVERY_COLUMNS, deliveryJson } from "./deliveryJson.ts";
import { getSubscription } from "./getSubscription.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/** A subscription's delivery log, newest first, `limit` (1–200, default 50) per page with a cursor to the next. */
export async function listDeliveries(ctx: WebhookContext, owner: string, id: string, query: URLSearchParams) {
  const limitText = query.get("limit") ?? "50";
  if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 200)
    throw new WebhookError("invalid_limit", "limit must be an integer from 1 to 200");
  const limit = Number(limitText);
  const cursorText = query.get("cursor");
  const cursor = cursorText ? decodeDeliveryCursor(cursorText) : null;
  await getSubscription(ctx, owner, id); // 404 unless it is the caller's
  const { rows } = await ctx.db.query(
    `SELECT ${DELIVERY_COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM webhook_deliveries WHERE subscription_id = $1
       AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [id, cursor?.createdAt ?? null, cursor?.id ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(deliveryJson), next_cursor: rows.length > limit && last ? encodeDeliveryCursor(last.cursor_at, last.id) : null };
}
