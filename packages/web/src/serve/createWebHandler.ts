import type { IncomingMessage, ServerResponse } from "node:http";
import { matchRoute, routeMeta, type RouteMatch } from "../explorer/routes.ts";
import { createGzip, constants as zlibConstants } from "node:zlib";
import { etagOf } from "@agent-ledger/core/etagOf";
import { isNotModified } from "@agent-ledger/core/isNotModified";
import { createAssetServer } from "./createAssetServer.ts";
import { negotiateEncoding } from "./negotiateEncoding.ts";
import { DEFAULT_DIST_DIR, readManifest, type WebManifest } from "./manifest.ts";
import { FIRST_ANSWER_ID, firstRequest, firstRequestTag } from "../explorer/dashboardQuery.ts";
import { dataBlock, pageHtml, pageHtmlParts, type InlineData } from "./pageHtml.ts";
import { securityHeaders } from "./securityHeaders.ts";

export interface WebHandlerOptions {
  /** Build output (default packages/web/dist, or WEB_DIST_DIR). */
  distDir?: string;
  /**
   * Whether the thing a page names exists (`/agents/:id`, …), so an unknown id answers HTTP 404 (the app then shows
   * its not-found page). Absent: every well-formed page path answers 200 and the app decides.
   */
  exists?: (route: RouteMatch & { param: string }) => Promise<boolean>;
  /**
   * Answers a page's first GraphQL request in-process — the public schema, the same answer (and response cache) as
   * that POST /graphql without credentials — as the JSON text of the response body, or null. The HTML then carries it
   * (docs/web.md, First paint) and the page paints without a round trip. Absent, null, failed or slower than
   * `firstAnswerTimeoutMs`: the HTML goes out without it and the page's boot script sends the request.
   */
  firstAnswer?: (request: { query: string; variables: Record<string, unknown> }) => Promise<string | null>;
  /** How long a page's HTML waits for `firstAnswer` (default 300 ms). */
  firstAnswerTimeoutMs?: number;
}

/** HTML is revalidated on every load (ETag → 304): it names the hashed assets of the current build. */
export const HTML_CACHE = "no-cache";

/**
 * The explorer and GraphiQL, served by the API process on its own origin (docs/web.md):
 *   /assets/*                hashed files, a year's immutable cache, br/gzip precompressed
 *   /, /services, /agents/:id, …  the explorer's HTML shell (per-page title and description; 404 for unknown ids)
 *   GET /graphql (a browser asking for HTML)  GraphiQL from our own bundle (it reads ?query= itself)
 *   any other path a browser asks HTML for: 404 with the explorer's not-found page.
 * Returns false when the request is not for a page (the API answers it). Without a build (`npm run build`) pages answer 503
 * `web_not_built` and the API keeps working.
 */
export function createWebHandler(options: WebHandlerOptions = {}) {
  const distDir = options.distDir ?? process.env.WEB_DIST_DIR ?? DEFAULT_DIST_DIR;
  // Read on first use and kept (a missing build is retried on the next request, so the API runs without one).
  let built: ReturnType<typeof load> | undefined;
  const current = () => (built ??= load(distDir));
  const explorerHeaders = securityHeaders();
  const graphiqlHeaders = securityHeaders({ extra: { "style-src": "'self' 'unsafe-inline'", "worker-src": "'self'", "font-src": "'self' data:" } });

  function send(req: IncomingMessage, res: ServerResponse, status: number, html: string, etag: string, headers: Record<string, string>) {
    const h: Record<string, string> = { ...headers, "content-type": "text/html; charset=utf-8", "cache-control": HTML_CACHE, etag, vary: "accept" };
    // If-None-Match as RFC 9110 says (lists, W/ from a compressing CDN, *): the API's one check (core isNotModified)
    if (status === 200 && isNotModified(req.headers, etag)) {
      res.writeHead(304, h);
      return void res.end();
    }
    h["content-length"] = String(Buffer.byteLength(html));
    res.writeHead(status, h);
    res.end(req.method === "HEAD" ? undefined : html);
  }

  const wantsHtml = (req: IncomingMessage) => (req.method === "GET" || req.method === "HEAD") && /\btext\/html\b/.test(req.headers.accept ?? "");
  const notBuilt = (res: ServerResponse, error: unknown) => {
    res.writeHead(503, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(
      JSON.stringify({ error: { code: "web_not_built", message: error instanceof Error ? error.message : "the web assets are not built: run npm run build" } }),
    );
  };

  /** The page's first GraphQL answer as a data block, or undefined (none, an error, or not within the timeout). */
  async function inlineAnswer(url: URL): Promise<InlineData | undefined> {
    if (!options.firstAnswer) return undefined;
    const first = firstRequest(url);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, options.firstAnswerTimeoutMs ?? 300, null)));
    try {
      const json = await Promise.race([options.firstAnswer({ query: first.query, variables: first.variables }), late]);
      return json === null ? undefined : { id: FIRST_ANSWER_ID, attrs: { request: firstRequestTag(first) }, json };
    } catch {
      return undefined; // the API is failing: the page asks itself, and shows the API-down banner if it has to
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** The build's manifest (throws WebAssetsMissingError when `npm run build` has not run). */
    manifest: (): WebManifest => current().manifest,
    async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
      const isPage = url.pathname === "/graphql" ? wantsHtml(req) : matchRoute(url.pathname) !== null || wantsHtml(req) || url.pathname.startsWith("/assets/");
      if (!isPage) return false;
      let b: ReturnType<typeof load>;
      try {
        b = current();
      } catch (error) {
        built = undefined;
        notBuilt(res, error);
        return true;
      }
      if (await b.serveAsset(req, res, url.pathname)) return true;
      if (url.pathname === "/graphql") {
        send(req, res, 200, b.graphiql.html, b.graphiql.etag, graphiqlHeaders);
        return true;
      }
      const match = matchRoute(url.pathname);
      // A page path answers any GET (a link, curl); other paths only a browser asking for HTML (APIs keep JSON 404s).
      if (match ? req.method !== "GET" && req.method !== "HEAD" : !wantsHtml(req)) return false;
      let status = match ? 200 : 404;
      if (match?.param !== undefined && options.exists && !(await options.exists(match as RouteMatch & { param: string }))) status = 404;
      if (status === 200 && options.firstAnswer && req.method === "GET") {
        // The page's first GraphQL answer goes at the end of the HTML; the part before it (stylesheet, scripts) is sent
        // at once, so the browser fetches them while the answer is computed. No ETag: the figures change.
        // Gzipped when accepted (the answer is tens of KB of JSON), the head flushed on its own.
        const [head, tail] = b.shellParts(match);
        const gzip = negotiateEncoding(req.headers["accept-encoding"], ["gzip"]) ? createGzip({ level: 6 }) : null;
        res.writeHead(200, {
          ...explorerHeaders,
          "content-type": "text/html; charset=utf-8",
          "cache-control": HTML_CACHE,
          vary: "accept, accept-encoding",
          ...(gzip ? { "content-encoding": "gzip" } : {}),
        });
        if (gzip) gzip.pipe(res);
        const out = gzip ?? res;
        out.write(head);
        gzip?.flush(zlibConstants.Z_SYNC_FLUSH);
        const data = await inlineAnswer(url);
        out.end(`${data ? dataBlock(data) : ""}${tail}`);
        return true;
      }
      const s = b.shell(status === 404 ? null : match);
      send(req, res, status, s.html, s.etag, explorerHeaders);
      return true;
    },
  };
}

const NOSCRIPT = "The Agent Ledger explorer needs JavaScript. The same data is served as JSON under /api and GraphQL at /graphql.";

function load(distDir: string) {
  const manifest = readManifest(distDir);
  const graphiqlHtml = pageHtml({
    title: "GraphiQL — Agent Ledger",
    description: "Run GraphQL queries and live subscriptions against the Agent Ledger API.",
    assets: manifest.pages.graphiql,
    module: false,
    bodyClass: "graphiql",
    noscript: "GraphiQL needs JavaScript.",
  });
  const shells = new Map<string, { html: string; etag: string }>();
  return {
    manifest,
    serveAsset: createAssetServer(distDir, manifest),
    graphiql: { html: graphiqlHtml, etag: etagOf(graphiqlHtml) },
    shellParts: (match: RouteMatch | null) => pageHtmlParts({ ...routeMeta(match), assets: manifest.pages.explorer, module: true, noscript: NOSCRIPT }),
    shell(match: RouteMatch | null) {
      const meta = routeMeta(match);
      const key = `${meta.title}\n${meta.description}`;
      let s = shells.get(key);
      if (!s) {
        const html = pageHtml({ ...meta, assets: manifest.pages.explorer, module: true, noscript: NOSCRIPT });
        s = { html, etag: etagOf(html) };
        if (shells.size < 1000) shells.set(key, s);
      }
      return s;
    },
  };
}

export type WebHandler = ReturnType<typeof createWebHandler>;
