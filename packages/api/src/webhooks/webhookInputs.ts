import { z } from "zod";
import { parsedBy } from "../routes/parsedBy.ts";
import { decodeDeliveryCursor } from "./deliveryCursor.ts";
import { parseDeliveryLimit } from "./parseDeliveryLimit.ts";
import { parseVerifyToken } from "./parseVerifyToken.ts";
import { WebhookError } from "./WebhookError.ts";

// The declared input of the webhook routes (webhookRoutes.ts), checked by the router before the handler runs. What
// depends on the deployment (callback_url's scheme in production: validateCreateInput) or on the time (recover's
// `since`: parseRecoverSince) stays in the service, which GraphQL's mutations call with the same fields.

/** A JSON object body whose top-level fields are all `allowed`, or 400 `invalid_body` with `unknown(key)` as message. */
const objectWith = (allowed: readonly string[], notObject: string, unknown: (key: string) => string) =>
  parsedBy((body: unknown) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new WebhookError("invalid_body", notObject);
    for (const key of Object.keys(body)) if (!allowed.includes(key)) throw new WebhookError("invalid_body", unknown(key));
    return body as Record<string, unknown>;
  });

/** POST /api/webhooks `{ callback_url, label?, filters }`: the fields are validated by the service (validateCreateInput). */
export const CREATE_WEBHOOK_BODY = objectWith(["callback_url", "label", "filters"], "the body must be a JSON object", (key) => `unknown field "${key}"`);

/** POST /api/webhooks/:id/verify `{ verify_token }`. */
export const VERIFY_WEBHOOK_BODY = parsedBy(parseVerifyToken);

/** POST /api/webhooks/:id/recover `{ since }`: `since` itself is checked against the time by the service. */
export const RECOVER_WEBHOOK_BODY = objectWith(["since"], 'body must be a JSON object {"since": "<ISO 8601>"}', (key) => `unknown field: ${key.slice(0, 40)}`);

/** The statuses a delivery goes through (docs/webhooks.md, "Delivery log"). */
export const DELIVERY_STATUSES = ["pending", "retrying", "succeeded", "dead"] as const;

/** GET /api/webhooks/:id/deliveries `?limit=&cursor=&status=` (an empty cursor is the first page; no status = all). */
export const DELIVERIES_QUERY = z.object({
  limit: parsedBy(parseDeliveryLimit),
  cursor: parsedBy((cursor: string | undefined) => (cursor ? decodeDeliveryCursor(cursor) : null)),
  status: parsedBy((status: string | undefined) => {
    if (status === undefined || status === "") return null;
    if (!(DELIVERY_STATUSES as readonly string[]).includes(status))
      throw new WebhookError("invalid_query", `status must be one of ${DELIVERY_STATUSES.join(", ")}`);
    return status as (typeof DELIVERY_STATUSES)[number];
  }),
});

export type DeliveryPage = z.output<typeof DELIVERIES_QUERY>;
