import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { approvalPageHtml } from "./approve/pageHtml.ts";
import { DEFAULT_DIST_DIR, readManifest, type WebManifest } from "./serve/manifest.ts";
import { securityHeaders } from "./serve/securityHeaders.ts";

export interface ApprovalPageHandlerOptions {
  /**
   * Origins the page may call besides its own (the chain RPC and relay named by approve-init). Default: any https
   * origin and http on localhost / 127.0.0.1 (a local devnet).
   */
  connectSrc?: string[];
  /** The build's manifest (default: read from packages/web/dist, or WEB_DIST_DIR, on first request). */
  manifest?: () => WebManifest;
}

export const APPROVAL_PAGE_PATH = "/approve";
const DEFAULT_CONNECT_SRC = ["https:", "http://localhost:*", "http://127.0.0.1:*"];

/**
 * Serves the passkey approval page `GET /approve`: HTML naming the hashed bundle and stylesheet that `npm run build`
 * wrote (served under /assets/ by the web handler). The HTML is never cached (it is the entry point of a
 * security-relevant flow). Strict CSP, no framing, no referrer (the URL carries the pairing code).
 * Returns false when the path is not /approve (the caller answers 404).
 */
export function createApprovalPageHandler(options: ApprovalPageHandlerOptions = {}) {
  const manifest = options.manifest ?? (() => readManifest(process.env.WEB_DIST_DIR ?? DEFAULT_DIST_DIR));
  let page: { html: string; etag: string } | undefined;
  const current = () => {
    if (page) return page;
    const m = manifest();
    const html = approvalPageHtml({ scriptPath: m.pages.approve.js[0]!, stylePath: m.pages.approve.css[0]! });
    return (page = { html, etag: `"${createHash("sha256").update(html).digest("base64url").slice(0, 22)}"` });
  };
  const common = securityHeaders({ connectSrc: options.connectSrc ?? DEFAULT_CONNECT_SRC, referrer: "no-referrer" });

  return async function handleApprovalPage(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname.length > 1 && url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
    if (path !== APPROVAL_PAGE_PATH) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...common, allow: "GET, HEAD", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: { code: "method_not_allowed", message: `${req.method} is not allowed on ${url.pathname}` } }));
      return true;
    }
    let html: string, etag: string;
    try {
      ({ html, etag } = current());
    } catch (error) {
      res.writeHead(503, { ...common, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: { code: "web_not_built", message: error instanceof Error ? error.message : "run npm run build" } }));
      return true;
    }
    res.writeHead(200, {
      ...common,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      etag,
      "content-length": String(Buffer.byteLength(html)),
    });
    res.end(req.method === "HEAD" ? undefined : html);
    return true;
  };
}

export type ApprovalPageHandler = ReturnType<typeof createApprovalPageHandler>;
