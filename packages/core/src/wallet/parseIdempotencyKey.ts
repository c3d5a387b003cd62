export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const KEY = /^[\x21-\x7e]+$/;

/**
 * The `Idempotency-Key` request header of a payment: absent → null (no idempotency); otherwise 1–255 visible ASCII
 * characters (no spaces, no control characters; a UUID is the usual choice). A repeated header (Node joins repeats
 * with ", ") is invalid.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): { ok: true; key: string | null } | { ok: false; reason: string } {
  if (header === undefined) return { ok: true, key: null };
  if (Array.isArray(header) || header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH || !KEY.test(header)) {
    return { ok: false, reason: `Idempotency-Key must be 1–${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no spaces), sent once` };
  }
  return { ok: true, key: header };
}
