import { describe, expect, it } from "vitest";
import { signPayload } from "./signPayload.ts";
import { WebhookVerificationError, verifyWebhook } from "./verifyWebhook.ts";

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
  it("accepts when any of several v1 digests matches (secret rotation), ignores other schemes and junk parts", () => {
    const t = now.getTime() / 1000;
    const good = signPayload(secret, body, now).split("v1=")[1]!;
    const other = signPayload("whsec_old", body, now).split("v1=")[1]!;
    expect(verifyWebhook(body, headers(`t=${t},v1=${other},v1=${good}`), secret, { now }).timestamp).toBe(t);
    expect(verifyWebhook(body, headers(`t=${t},v1=${good},v1=${other}`), secret, { now }).timestamp).toBe(t);
    expect(verifyWebhook(body, headers(`t=${t},v1=nothex,v1=${good}`), secret, { now }).timestamp).toBe(t);
    expect(verifyWebhook(body, headers(` t = ${t} , v0=${other}, junk ,=x, v1 = ${good.toUpperCase()} `), secret, { now }).timestamp).toBe(t);
    expect(() => verifyWebhook(body, headers(`t=${t},v1=${other},v1=${other}`), secret, { now })).toThrow(/does not match/);
    expect(() => verifyWebhook(body, headers(`t=${t},v0=${good}`), secret, { now })).toThrow(/no v1/);
  });
  it("compares whole digests: a digest with extra characters, or a prefix of one, does not match", () => {
    const t = now.getTime() / 1000;
    const good = signPayload(secret, body, now).split("v1=")[1]!;
    for (const v of [`${good}00`, `0${good}`, good.slice(0, 62), `${good}x`]) {
      expect(() => verifyWebhook(body, headers(`t=${t},v1=${v}`), secret, { now }), v).toThrow(/does not match/);
    }
  });
  it("reads t as 1–12 decimal digits only, the first t when repeated", () => {
    const t = now.getTime() / 1000;
    const good = signPayload(secret, body, now).split("v1=")[1]!;
    for (const bad of [`${t}x`, `x${t}`, `-${t}`, `${t}.0`, "", "1234567890123"]) {
      expect(() => verifyWebhook(body, headers(`t=${bad},v1=${good}`), secret, { now }), bad).toThrow(/numeric t/);
    }
    expect(verifyWebhook(body, headers(`t=${t},t=1,v1=${good}`), secret, { now }).timestamp).toBe(t);
  });
  it("uses 300 s by default and honours another tolerance; the signature is checked after the clock", () => {
    const sig = signPayload(secret, body, now);
    expect(() => verifyWebhook(body, headers(sig), secret, { now: new Date(now.getTime() + 61_000), toleranceSeconds: 60 })).toThrow(/more than 60s/);
    expect(verifyWebhook(body, headers(sig), secret, { now: new Date(now.getTime() + 60_000), toleranceSeconds: 60 }).timestamp).toBe(now.getTime() / 1000);
    const err = (() => {
      try {
        verifyWebhook(body, headers(sig), "wrong", { now: new Date(now.getTime() + 400_000) });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect((err as WebhookVerificationError).code).toBe("stale_timestamp");
  });
  it("reads the default clock when no `now` is given", () => {
    const current = new Date();
    expect(verifyWebhook(body, headers(signPayload(secret, body, current)), secret).timestamp).toBe(Math.floor(current.getTime() / 1000));
    expect(() => verifyWebhook(body, headers(signPayload(secret, body, now)), secret)).toThrow(/more than 300s/);
  });
  it("gives each failure its code and finds headers in any case, as arrays too", () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as WebhookVerificationError).code;
      }
      return "none";
    };
    const t = now.getTime() / 1000;
    expect(code(() => verifyWebhook(body, {}, secret, { now }))).toBe("missing_signature");
    expect(code(() => verifyWebhook(body, headers("v1=00"), secret, { now }))).toBe("malformed_signature");
    expect(code(() => verifyWebhook(body, headers(`t=${t}`), secret, { now }))).toBe("malformed_signature");
    expect(code(() => verifyWebhook(body, headers(`t=${t},v1=00`), secret, { now }))).toBe("bad_signature");
    const sig = signPayload(secret, body, now);
    expect(verifyWebhook(body, { "svc-signature": [sig, "t=1,v1=00"], "SVC-DELIVERY": "d-9" }, secret, { now })).toEqual({
      deliveryId: "d-9",
      subscriptionId: undefined,
      eventId: undefined,
      timestamp: t,
    });
  });
  it("skips header parts without a key, even one that starts like t or v1", () => {
    const t = now.getTime() / 1000;
    const good = signPayload(secret, body, now).split("v1=")[1]!;
    expect(verifyWebhook(body, headers(`t1,t=${t},v1=${good}`), secret, { now }).timestamp).toBe(t);
    expect(verifyWebhook(body, headers(`t=${t},v1x,v1=${good}`), secret, { now }).timestamp).toBe(t);
  });
});

describe("WebhookVerificationError", () => {
  it("is named after its class (what a receiver's logs show) and carries its code", () => {
    expect(new WebhookVerificationError("bad_signature", "no match")).toMatchObject({
      name: "WebhookVerificationError",
      code: "bad_signature",
      message: "no match",
    });
  });
});
