import { createHash } from "node:crypto";

/**
 * A strong entity tag of a representation's bytes (RFC 9110 §8.8.3): the first 22 characters (132 bits) of its
 * SHA-256 in base64url, quoted. Identical bytes give the same tag in every process and release, so replicas behind
 * one CDN agree. The API's JSON answers and the explorer's HTML shells use it (docs/api.md, Caching).
 */
export function etagOf(body: string | Uint8Array): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}
