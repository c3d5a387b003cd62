import type { ServerResponse } from "node:http";
import { etagOf } from "@agent-ledger/core/etagOf";
import { isNotModified } from "@agent-ledger/core/isNotModified";

/** A serialized JSON answer (written as is to every response that asked for it); its ETag is computed once, on first use. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
  etag?: string;
}

/**
 * Writes a JSON answer with its route's `Cache-Control` (a handler's own header wins) and, for a 200 to a GET or HEAD
 * whose policy is not `no-store`, its cache validator: a strong ETag of the body (core etagOf, computed once per answer, so a shared
 * answer — the cached dashboard, a coalesced read — is hashed once). A GET or HEAD whose `If-None-Match` matches
 * (core isNotModified: weak comparison, lists, `*`) gets `304 Not Modified` with no body and the same headers but
 * `Content-Type`/`Content-Length` (RFC 9110 §15.4.5). HEAD gets the headers of GET without the body. docs/api.md, Caching.
 * `extra` headers belong to this response only (read routing's `X-Ledger-Block`), not to the shared answer.
 */
export function writeAnswer(res: ServerResponse, answer: Answer, cacheControl: string, extra?: Record<string, string>): void {
  const headers: Record<string, string | string[]> = { "cache-control": cacheControl, ...answer.headers, ...extra };
  const req = res.req;
  const policy = String(headers["cache-control"]);
  const read = req?.method === "GET" || req?.method === "HEAD";
  if (!read || answer.status !== 200 || /(?:^|,)\s*no-store\s*(?:,|$)/i.test(policy)) {
    res.writeHead(answer.status, headers);
    return void res.end(req?.method === "HEAD" ? undefined : answer.body);
  }
  const etag = (answer.etag ??= etagOf(answer.body));
  if (req && isNotModified(req.headers, etag)) {
    const { "content-type": _type, "content-length": _length, ...kept } = headers;
    res.writeHead(304, { ...kept, etag });
    return void res.end();
  }
  res.writeHead(200, { ...headers, etag });
  res.end(req?.method === "HEAD" ? undefined : answer.body);
}
