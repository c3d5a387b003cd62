import { createHmac } from "node:crypto";

/** hex HMAC-SHA256 of `"<t>.<raw body>"` under `secret` (spec §6 Signature). */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return hmac.digest("hex");
}

/** The `Svc-Signature` header value: `t=<unix seconds>,v1=<hex hmac>`. */
export function signPayload(secret: string, rawBody: string | Uint8Array, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${computeSignature(secret, t, rawBody)}`;
}
