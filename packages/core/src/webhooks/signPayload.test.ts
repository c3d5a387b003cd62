import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { computeSignature, signPayload } from "./signPayload.ts";

// spec §6 Signature: the signed string is `<t>.<raw_request_body>`, the digest HMAC-SHA-256 under the
// subscription's signing secret, hex-encoded in `v1`; the header is `t=<unix_seconds>,v1=<hex>`.
const secret = "whsec_test_secret";
const body = '{"type":"svc.event.v1","id":"d1"}';
const t = 1_795_332_156;
const byHand = (key: string, signed: string) => createHmac("sha256", key).update(signed).digest("hex");

describe("signPayload / computeSignature (known answers from the spec's scheme)", () => {
  it("matches fixed vectors", () => {
    expect(computeSignature(secret, t, body)).toBe("b7bd74464288e5b4c646c8c0fe3fcd6790fbac1507dd8aca082476c0467f411d");
    expect(computeSignature(secret, t, "")).toBe("a0f9c43bd8767944775c41dadb72a8a5b7ba43c480ad4eb5a9826c39f7c60f93");
  });
  it("signs `<t>.<raw body>` with HMAC-SHA-256, for strings and bytes alike", () => {
    expect(computeSignature(secret, t, body)).toBe(byHand(secret, `${t}.${body}`));
    expect(computeSignature(secret, t, Buffer.from(body))).toBe(byHand(secret, `${t}.${body}`));
    expect(computeSignature("other", 1, "é")).toBe(byHand("other", "1.é"));
    // the timestamp and the dot are part of what is signed
    expect(computeSignature(secret, t, body)).not.toBe(byHand(secret, body));
    expect(computeSignature(secret, t, body)).not.toBe(computeSignature(secret, t + 1, body));
  });
  it("writes the header as t=<unix seconds>,v1=<digest>, the seconds rounded down", () => {
    const now = new Date(t * 1000 + 999);
    expect(signPayload(secret, body, now)).toBe(`t=${t},v1=b7bd74464288e5b4c646c8c0fe3fcd6790fbac1507dd8aca082476c0467f411d`);
    expect(signPayload(secret, Buffer.from(body), new Date(t * 1000))).toBe(signPayload(secret, body, now));
  });
});
