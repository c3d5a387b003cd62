import { describe, expect, it } from "vitest";
import { signPayload } from "./signPayload.ts";
import { verifyWebhook } from "./verifyWebhook.ts";

const secret = "whsec_test_secret";
const body = '{"type":"svc.event.v1","id":"d1","data":{"amount_wei":"1000000"}}';
const now = new Date("2026-11-22T06:00:00Z");
const headers = (sig: string) => ({ "Svc-Signature": sig, "Svc-Delivery": "0b7c2f7e-delivery", "Svc-Subscription": "whs_1", "Svc-Event-Id": "42" });

describe("verifyWebhook", () => {
  it("accepts a signature over the raw body and returns the delivery headers", () => {
    const v = verifyWebhook(body, headers(signPayload(secret, body, now)), secret, { now });
    expect(v).toEqual({ deliveryId: "0b7c2f7e-delivery", subscriptionId: "whs_1", eventId: "42", timestamp: now.getTime() / 1000 });
    // Buffers and Fetch Headers work too.
    expect(verifyWebhook(Buffer.from(body), new Headers(headers(signPayload(secret, body, now))), secret, { now }).eventId).toBe("42");
  });
  it("rejects a tampered body, a re-serialized body, and a wrong secret", () => {
    const sig = signPayload(secret, body, now);
    expect(() => verifyWebhook(body.replace("1000000", "9000000"), headers(sig), secret, { now })).toThrow(/does not match/);
    expect(() => verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), headers(sig), secret, { now })).toThrow(/does not match/);
    expect(() => verifyWebhook(body, headers(sig), "other", { now })).toThrow(/does not match/);
  });
  it("rejects stale or future timestamps beyond the tolerance, accepts within", () => {
    const sig = signPayload(secret, body, now);
    expect(() => verifyWebhook(body, headers(sig), secret, { now: new Date(now.getTime() + 301_000) })).toThrow(/more than 300s/);
    expect(() => verifyWebhook(body, headers(sig), secret, { now: new Date(now.getTime() - 301_000) })).toThrow(/more than 300s/);
    expect(verifyWebhook(body, headers(sig), secret, { now: new Date(now.getTime() + 300_000) }).timestamp).toBe(now.getTime() / 1000);
  });
  it.each([
    ["", /missing/],
    ["v1=abc", /numeric t/],
    ["t=abc,v1=00", /numeric t/],
    ["t=1e9,v1=00", /numeric t/],
    [`t=${now.getTime() / 1000}`, /no v1/],
    [`t=${now.getTime() / 1000},v1=zz`, /does not match/],
  ])("rejects malformed header %j", (sig, message) => {
    expect(() => verifyWebhook(body, sig ? headers(sig) : {}, secret, { now })).toThrow(message);
  });
});
