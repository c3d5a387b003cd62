import { ApiError } from "../errors.ts";

/** A gateway provider key: an address (Pattern A, `0x` + 40 hex) or a memo fingerprint (Pattern B, `0x` + 20 hex), lowercase. */
export const PROVIDER_KEY = /^0x[0-9a-f]{20}(?:[0-9a-f]{20})?$/;

/** The provider key `value` names (trimmed, lowercased), or null when it is not one (no key of another shape exists). */
export function normalizeProviderKey(value: string): string | null {
  const key = value.trim().toLowerCase();
  return PROVIDER_KEY.test(key) ? key : null;
}

/**
 * A provider key given as a filter (REST `provider=`, GraphQL `providerKey`): refused with 400 `invalid_query` unless it
 * is one, so nothing of another shape (a NUL byte, which PostgreSQL refuses in text, a huge string) reaches a query.
 */
export function parseProviderKey(value: string): string {
  const key = normalizeProviderKey(value);
  if (key === null) throw new ApiError("invalid_query", "provider must be a provider address (0x + 40 hex) or memo fingerprint (0x + 20 hex)");
  return key;
}
