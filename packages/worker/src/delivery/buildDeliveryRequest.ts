import { signPayload } from "@agent-ledger/core";
import { USER_AGENT } from "../constants.ts";
import { eventRowJson, type EventRowDb } from "./eventRowJson.ts";

export type DeliveryContent =
  | { type: "event"; deliveryId: string; subscriptionId: string; event: EventRowDb }
  | { type: "verify"; deliveryId: string; subscriptionId: string; verifyToken: string }
  | { type: "test"; deliveryId: string; subscriptionId: string };

export interface DeliveryRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The exact bytes and headers of one attempt (spec §6). The body is serialized once and signed as
 * sent: `Svc-Signature: t=<unix>,v1=hex(HMAC-SHA256(secret, "<t>.<body>"))`. `delivered_at` and `t`
 * are the time of this attempt; `id`/`Svc-Delivery` is the delivery id, the same on every retry.
 * A test event (`POST /api/webhooks/{id}/test`) is an event without `data` and without `Svc-Event-Id`.
 */
export function buildDeliveryRequest(content: DeliveryContent, secret: string, now: Date): DeliveryRequest {
  const payload =
    content.type === "event"
      ? {
          type: "svc.event.v1",
          id: content.deliveryId,
          delivered_at: now.toISOString(),
          subscription_id: content.subscriptionId,
          data: eventRowJson(content.event),
        }
      : content.type === "test"
        ? { type: "svc.webhook.test", id: content.deliveryId, delivered_at: now.toISOString(), subscription_id: content.subscriptionId }
        : { type: "svc.webhook.verify", verify_token: content.verifyToken, subscription_id: content.subscriptionId };
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "Svc-Delivery": content.deliveryId,
    "Svc-Subscription": content.subscriptionId,
  };
  if (content.type === "event") headers["Svc-Event-Id"] = content.event.id;
  headers["Svc-Signature"] = signPayload(secret, body, now);
  return { body, headers };
}
