import type { IncomingMessage } from "node:http";

/**
 * Whether a POST can take the direct JSON lane at all, from its headers alone: `Content-Type: application/json`
 * (UTF-8), a `Content-Length` within `limitBytes`, and an `Accept` that yoga would answer with `application/json`
 * (absent, `*∕*` or `application/json`). Anything else (GET, other media types, SSE / multipart / graphql-response+json,
 * chunked or oversized bodies) stays with yoga.
 */
export function acceptsJsonLane(req: IncomingMessage, limitBytes: number): boolean {
  if (req.method !== "POST") return false;
  const type = req.headers["content-type"];
  if (!type || !/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type)) return false;
  const length = req.headers["content-length"];
  if (length === undefined || !/^\d{1,9}$/.test(length) || Number(length) > limitBytes || req.headers["transfer-encoding"] !== undefined) return false;
  const accept = req.headers.accept;
  return accept === undefined || /^\s*(\*\/\*|application\/json)\s*(;\s*charset=utf-8\s*)?$/i.test(accept);
}
