import type { IncomingMessage, ServerResponse } from "node:http";
import { APPROVAL_PAGE_PATHS, buildApprovalPage, type ApprovalPageAssets } from "./buildApprovalPage.ts";

export interface ApprovalPageHandlerOptions {
  /**
   * Origins the page may call besides its own (the chain RPC and relay named by approve-init). Default: any https
   * origin and http on localhost / 127.0.0.1 (a local devnet).
   */
  connectSrc?: string[];
  /** Where the bundle comes from (tests may inject one). */
  load?: () => Promise<ApprovalPageAssets>;
  /** Called when the bundle cannot be built (the request gets a 500). */
  onError?: (error: unknown) => void;
}

const DEFAULT_CONNECT_SRC = ["https:", "http://localhost:*", "http://127.0.0.1:*"];

/**
 * Serves the passkey approval page: `GET /approve` (HTML), `/approve/app.js` (the bundle), `/approve/app.css`.
 * Returns false when the path is not one of them (the caller answers 404). The HTML is never cached (it is the
 * entry point of a security-relevant flow); the assets revalidate by ETag. Strict CSP, no framing, no referrer
 * (the URL carries the pairing code).
 */
export function createApprovalPageHandler(options: ApprovalPageHandlerOptions = {}) {
  const load = options.load ?? buildApprovalPage;
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${(options.connectSrc ?? DEFAULT_CONNECT_SRC).join(" ")}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const common = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "content-security-policy": csp,
  };

  return async function handleApprovalPage(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname.length > 1 && url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
    const kind = path === APPROVAL_PAGE_PATHS.html ? "html" : path === APPROVAL_PAGE_PATHS.js ? "js" : path === APPROVAL_PAGE_PATHS.css ? "css" : null;
    if (!kind) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...common, allow: "GET, HEAD", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: { code: "method_not_allowed", message: `${req.method} is not allowed on ${url.pathname}` } }));
      return true;
    }
    let assets: ApprovalPageAssets;
    try {
      assets = await load();
    } catch (error) {
      options.onError?.(error);
      res.writeHead(500, { ...common, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: { code: "internal_error", message: "the approval page could not be built" } }));
      return true;
    }
    const body = assets[kind];
    const type = kind === "html" ? "text/html; charset=utf-8" : kind === "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
    const headers: Record<string, string> = {
      ...common,
      "content-type": type,
      etag: assets.etags[kind],
      "cache-control": kind === "html" ? "no-store" : "no-cache",
    };
    if (kind !== "html" && req.headers["if-none-match"] === assets.etags[kind]) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    headers["content-length"] = String(Buffer.byteLength(body));
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : body);
    return true;
  };
}

export type ApprovalPageHandler = ReturnType<typeof createApprovalPageHandler>;
