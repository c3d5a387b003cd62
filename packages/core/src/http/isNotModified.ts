/// <reference path="../types/fresh.d.ts" />
import fresh from "fresh";

/**
 * Whether a GET or HEAD whose answer would be 200 with this `etag` may be answered `304 Not Modified` (RFC 9110
 * §13.1.2): `If-None-Match` is `*` or lists the tag, compared weakly (`W/"x"` matches `"x"`: a CDN that compresses
 * weakens our strong tags). Only `If-None-Match` counts: `If-Modified-Since` alone never matches (we send no
 * `Last-Modified`), and a request's `Cache-Control: no-cache` does not turn the check off — fetch() adds it to every
 * request with a validator of its own (Fetch standard, HTTP-network-or-cache fetch), and a 304 from the origin is the
 * validation it asks for (RFC 9111 §5.2.1.4). The list parsing and comparison are `fresh`'s (jshttp, express's check).
 * Kept off core's index: the CLI bundles the index and does not declare `fresh`.
 */
export function isNotModified(requestHeaders: Record<string, string | string[] | undefined>, etag: string): boolean {
  const condition = requestHeaders["if-none-match"];
  const value = Array.isArray(condition) ? condition.join(", ") : condition;
  return value !== undefined && value !== "" && fresh({ "if-none-match": value }, { etag });
}
