import { timingSafeEqual } from "node:crypto";
import { LedgerError } from "../errors.ts";
import { computeSignature } from "./signPayload.ts";

export class WebhookVerificationError extends LedgerError {
  constructor(code: "missing_signature" | "malformed_signature" | "stale_timestamp" | "bad_signature", message: string) {
    super(code, message);
    this.name = "WebhookVerificationError";
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifiedWebhook {
  /** `Svc-Delivery`: stable across retries — dedupe on it. */
  deliveryId: string | undefined;
  subscriptionId: string | undefined;
  eventId: string | undefined;
  timestamp: number;
}

/**
 * Receiver side of the signature (spec §6): checks `Svc-Signature: t=…,v1=…` against the RAW body
 * bytes (never re-serialized JSON), rejects a missing/non-numeric `t` or one more than
 * `toleranceSeconds` away from `now`, and compares digests in constant time. Throws
 * WebhookVerificationError; returns the delivery headers on success.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): VerifiedWebhook {
  const { toleranceSeconds = 300, now = new Date() } = options;
  const value = header(headers, "svc-signature");
  if (!value) throw new WebhookVerificationError("missing_signature", "Svc-Signature header is missing");
  const parts = new Map<string, string[]>();
  for (const part of value.split(",")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const k = part.slice(0, at).trim();
    parts.set(k, [...(parts.get(k) ?? []), part.slice(at + 1).trim()]);
  }
  const t = parts.get("t")?.[0];
  if (t === undefined || !/^\d{1,12}$/.test(t)) throw new WebhookVerificationError("malformed_signature", "Svc-Signature has no numeric t");
  const timestamp = Number(t);
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError("stale_timestamp", `signature timestamp is more than ${toleranceSeconds}s from now`);
  }
  const candidates = parts.get("v1") ?? [];
  if (candidates.length === 0) throw new WebhookVerificationError("malformed_signature", "Svc-Signature has no v1 digest");
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), "hex");
  const ok = candidates.some((c) => {
    if (!/^[0-9a-f]{64}$/i.test(c)) return false;
    return timingSafeEqual(Buffer.from(c, "hex"), expected);
  });
  if (!ok) throw new WebhookVerificationError("bad_signature", "signature does not match the body");
  return {
    deliveryId: header(headers, "svc-delivery"),
    subscriptionId: header(headers, "svc-subscription"),
    eventId: header(headers, "svc-event-id"),
    timestamp,
  };
}
