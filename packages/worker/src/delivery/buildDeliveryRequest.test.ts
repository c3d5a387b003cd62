import { verifyWebhook } from "@agent-ledger/core";
import { describe, expect, it } from "vitest";
import { buildDeliveryRequest } from "./buildDeliveryRequest.ts";
import type { EventRowDb } from "./eventRowJson.ts";

const event: EventRowDb = {
  id: "42",
  ts: new Date("2026-11-22T05:00:00Z"),
  agent_id: "a-1",
  agent_label: "A",
  agent_category: "agent",
  counterparty_address: "0x00000000000000000000000000000000000000aa",
  counterparty_label: "",
  counterparty_category: null,
  kind: "payment_sent",
  amount_wei: "123456789012345678901234567890",
  token_address: "0x20c0000000000000000000000000000000000000",
  tx_hash: `0x${"ab".repeat(32)}`,
  source_block: "7",
  methodology_version: "v0.1",
  routed_to_address: "",
  routed_to_label: "",
  routed_fingerprint: null,
  explorer_url: "https://x/tx/1",
};
const now = new Date("2026-11-22T06:00:00.123Z");

describe("buildDeliveryRequest", () => {
  it("event: exact body, headers, and a signature over the bytes sent", () => {
    const { body, headers } = buildDeliveryRequest({ type: "event", deliveryId: "d-1", subscriptionId: "whs_1", event }, "whsec_x", now);
    const parsed = JSON.parse(body);
    expect(parsed).toEqual({
      type: "svc.event.v1",
      id: "d-1",
      delivered_at: "2026-11-22T06:00:00.123Z",
      subscription_id: "whs_1",
      data: { ...event, id: 42, ts: "2026-11-22T05:00:00.000Z", source_block: 7 },
    });
    expect(parsed.data.amount_wei).toBe("123456789012345678901234567890"); // a string: never through a JS number
    expect(headers).toEqual({
      "Content-Type": "application/json",
      "User-Agent": "Svc-Webhooks/1.0",
      "Svc-Delivery": "d-1",
      "Svc-Subscription": "whs_1",
      "Svc-Event-Id": "42",
      "Svc-Signature": expect.stringMatching(/^t=1795327200,v1=[0-9a-f]{64}$/),
    });
    expect(verifyWebhook(body, headers, "whsec_x", { now })).toMatchObject({ deliveryId: "d-1", eventId: "42" });
  });
  it("verify ping: exactly { type, verify_token, subscription_id }, no Svc-Event-Id", () => {
    const { body, headers } = buildDeliveryRequest({ type: "verify", deliveryId: "d-2", subscriptionId: "whs_1", verifyToken: "whvt_t" }, "whsec_x", now);
    expect(body).toBe('{"type":"svc.webhook.verify","verify_token":"whvt_t","subscription_id":"whs_1"}');
    expect(headers).not.toHaveProperty("Svc-Event-Id");
    expect(verifyWebhook(body, headers, "whsec_x", { now }).deliveryId).toBe("d-2");
  });
});
