import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import type { Logger } from "pino";
import { createGraphqlHandler, type GraphqlLimits } from "./graphql/createGraphqlHandler.ts";
import { createFeed, type Feed } from "./feed/createFeed.ts";
import { GRAPHQL_STREAM_PATH } from "./feed/createGraphqlStreamHandler.ts";
import type { FeedOptions } from "./feed/types.ts";
import { createOps } from "./ops/createOps.ts";
import type { ReadinessOptions } from "./ops/createReadiness.ts";
import { ERROR_STATUS } from "./errors.ts";
import { sendError } from "./http/sendError.ts";
import { answerClientError } from "./http/answerClientError.ts";
import { sendJson } from "./http/sendJson.ts";
import { createRestHandler } from "./rest/createRestHandler.ts";
import { authenticate } from "./auth/authenticate.ts";
import { checkDuplicateAuthorization } from "./auth/checkDuplicateAuthorization.ts";
import { checkRequestOrigin, ownOrigins } from "./auth/checkRequestOrigin.ts";
import { createWebhookRestHandler } from "./webhooks/createWebhookRestHandler.ts";
import { createWebhookService } from "./webhooks/createWebhookService.ts";
import type { Lookup } from "./webhooks/checkCallbackHost.ts";
import { createServices, type Services } from "./services/createServices.ts";
import { createWalletHandler, type WalletDeps } from "./wallet/createWalletHandler.ts";
import { resolveWalletConfig, type WalletOptions } from "./wallet/config.ts";
import { createApprovalPageHandler, createWebHandler } from "@agent-ledger/web";
import { pageExists } from "./services/pageExists.ts";
import { createMcpEndpoint, MCP_PATH } from "./mcp/createMcpEndpoint.ts";

const GRAPHQL_PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, accept, authorization",
  "access-control-max-age": "86400",
};

export interface AppDeps {
  pool: pg.Pool;
  log: Logger;
  /** Live methodology version served (default v0.1). */
  methodologyVersion?: string;
  /** Clock for window computations (tests inject one). */
  now?: () => Date;
  /** Dashboard in-process cache TTL (default 5 s; 0 = single-flight only). */
  dashboardCacheTtlMs?: number;
  graphqlLimits?: Partial<GraphqlLimits>;
  /** Live feed (`/api/feed`, `/graphql/stream`); disabled unless `enabled` (env NEXT_PUBLIC_LIVE_FEED=1). */
  feed?: Partial<FeedOptions>;
  /** Webhooks: master key (null → webhook writes answer 503 not_configured), production rules, DNS lookup. */
  webhooks?: { masterKey: Buffer | null; production: boolean; lookup?: Lookup };
  /** /readyz beyond the database: Redis PING, indexer lag vs the chain head, checkpoint age (absent = skipped). */
  readiness?: ReadinessOptions;
  /** Live-feed subscribers for the `agent_ledger_feed_subscribers` metric (0 until wired). */
  feedSubscriberCount?: () => number;
  /** The web pages: build output (default packages/web/dist or WEB_DIST_DIR); `firstAnswer: false` leaves each page's first GraphQL answer out of its HTML (bench:web's A B comparison). */
  web?: { distDir?: string; firstAnswer?: boolean };
  /** Wallet (`/api/wallet/*`, docs/wallet.md): passkeys, pairing, relay, payments. Absent = defaults, chain-less (503 where needed). */
  wallet?: Partial<WalletOptions> & Pick<WalletDeps, "onPayTiming" | "chain">;
}

export interface App {
  server: Server;
  services: Services;
  /** The live feed (its hub is null while disabled); `feed.subscriberCount()` feeds the metrics. */
  feed: Feed;
  /** Listens and returns the base URL (`port` 0 picks a free port). */
  start(port: number, host?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The HTTP app: `/healthz` (liveness), `/readyz` (database, Redis, indexer lag), `/metrics` (Prometheus), `/graphql`
 * (GraphQL + GraphiQL) and the REST shims under `/api`; every request gets an `x-request-id` and one log line (ops/). REST and GraphQL both call the same services.
 */
export function buildApp(deps: AppDeps): App {
  const services = createServices({
    db: deps.pool,
    version: deps.methodologyVersion,
    now: deps.now,
    dashboardCacheTtlMs: deps.dashboardCacheTtlMs,
  });
  const rest = createRestHandler({ services, log: deps.log });

  const webhookService = createWebhookService({
    db: deps.pool, masterKey: deps.webhooks?.masterKey ?? null, production: deps.webhooks?.production ?? false, lookup: deps.webhooks?.lookup, now: deps.now,
    methodologyVersion: deps.methodologyVersion,
  });
  const webhooksRest = createWebhookRestHandler({ db: deps.pool, service: webhookService, log: deps.log, now: deps.now });
  const { onPayTiming, chain: walletChain, ...walletOptions } = deps.wallet ?? {};
  const wallet = createWalletHandler({ db: deps.pool, log: deps.log, options: walletOptions, now: deps.now, onPayTiming, chain: walletChain });
  const graphql = createGraphqlHandler({
    services, log: deps.log, limits: deps.graphqlLimits, webhooks: webhookService, wallet: wallet.ctx,
    // Cacheable operations (dashboard) are kept as long as the dashboard itself (0 = none).
    responseCache: { ttlMs: deps.dashboardCacheTtlMs ?? 5_000 },
    authenticate: (headers, options) => authenticate(deps.pool, headers, (deps.now ?? (() => new Date()))(), options),
  });

  // Where our own pages run (PUBLIC_BASE_URL, WEBAUTHN_ORIGIN): the only origins the session cookie may act from.
  const walletConfig = resolveWalletConfig(walletOptions);
  const origins = ownOrigins(walletConfig.publicBaseUrl, walletConfig.origins);

  const feed = createFeed({ pool: deps.pool, services, log: deps.log, options: deps.feed, graphqlLimits: deps.graphqlLimits });

  // The explorer, GraphiQL and the passkey approval page (packages/web, bundled by `npm run build`; docs/web.md).
  // Each page's HTML carries the answer to its first GraphQL request (the dashboard's one query, or the token
  // allowlist), computed by the public schema in-process exactly as a POST without credentials (response cache included).
  const web = createWebHandler({
    distDir: deps.web?.distDir,
    exists: (route) => pageExists(services.context, route),
    firstAnswer: deps.web?.firstAnswer === false ? undefined : async (request) => {
      const answer = await graphql.query(request);
      return answer && answer.response.status === 200 && answer.cacheable ? answer.response.body.toString() : null;
    },
  });
  const approvalPage = createApprovalPageHandler({ manifest: web.manifest });

  const ops = createOps({ pool: deps.pool, log: deps.log, readiness: deps.readiness, feedSubscriberCount: deps.feedSubscriberCount ?? (() => feed.subscriberCount()) });

  // MCP over Streamable HTTP (docs/mcp.md): its tools call this server over loopback, as the client that called /mcp.
  const mcp = createMcpEndpoint({ log: deps.log, server: () => server });

  const server: Server = createServer(ops.instrument(async (req, res) => {
    mcp.adopt(req);
    try {
      let url: URL;
      try {
        url = new URL(req.url ?? "/", "http://localhost");
      } catch {
        return sendError(res, "not_found", "unparsable request target");
      }
      const isGraphql = url.pathname === "/graphql" || url.pathname === GRAPHQL_STREAM_PATH;
      // Refusals before routing, on every path: GraphQL's in its error shape, the others in the error body.
      const refuse = (code: "duplicate_authorization" | "cross_site_request", message: string) =>
        isGraphql
          ? sendJson(res, ERROR_STATUS[code], { errors: [{ message, extensions: { code } }] }, { "cache-control": "no-store" })
          : sendError(res, code, message);
      // Two Authorization headers: which one counts would depend on who reads them (auth/checkDuplicateAuthorization.ts).
      const duplicate = checkDuplicateAuthorization(req);
      if (duplicate) return refuse("duplicate_authorization", duplicate);
      // CSRF: a state-changing request carrying the passkey session cookie must come from our origin (auth/checkRequestOrigin.ts).
      const crossSite = checkRequestOrigin(req.method, req.headers, origins);
      if (crossSite) return refuse("cross_site_request", crossSite);
      if (url.pathname === MCP_PATH) return await mcp.handle(req, res);
      if (url.pathname === "/api/feed" || url.pathname === "/api/feed/") return await feed.handleSse(req, res, url);
      if (url.pathname === GRAPHQL_STREAM_PATH) return await feed.handleGraphqlStream(req, res);
      if (url.pathname === "/graphql") {
        if (await web.handle(req, res, url)) return; // GraphiQL: a browser's GET without a query
        if (req.method === "OPTIONS") {
          res.writeHead(204, GRAPHQL_PREFLIGHT_HEADERS);
          return void res.end();
        }
        res.setHeader("access-control-allow-origin", "*"); // merged into the headers yoga writes
        return void (await graphql(req, res));
      }
      if (url.pathname === "/api/webhooks" || url.pathname.startsWith("/api/webhooks/")) return await webhooksRest(req, res, url);
      if (url.pathname.startsWith("/api/wallet/")) return await wallet(req, res, url);
      if (url.pathname === "/api" || url.pathname.startsWith("/api/")) return await rest(req, res, url);
      if ((url.pathname === "/approve" || url.pathname.startsWith("/approve/")) && (await approvalPage(req, res, url))) return;
      if (req.method === "OPTIONS") {
        res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, OPTIONS" });
        return void res.end();
      }
      if (url.pathname === "/healthz") {
        if (req.method !== "GET" && req.method !== "HEAD") return sendError(res, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`, { allow: "GET, HEAD" });
        return sendJson(res, 200, { ok: true }, { "cache-control": "no-store" });
      }
      if (url.pathname === "/readyz") return await ops.readyz(req, res);
      if (url.pathname === "/metrics") return await ops.metricsEndpoint(req, res);
      if (await web.handle(req, res, url)) return; // explorer pages, /assets/*, the HTML 404 page
      return sendError(res, "not_found", `no route for ${req.method} ${url.pathname}`);
    } catch (error) {
      deps.log.error({ err: error }, "unhandled request error");
      if (!res.headersSent) sendError(res, "internal_error", "internal error");
      else res.destroy();
    }
  }));

  // Requests Node's parser refuses (URL or headers over 16 KiB, malformed) still get the JSON error body.
  server.on("clientError", answerClientError);

  return {
    server,
    services,
    feed,
    async start(port: number, host = "127.0.0.1"): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      feed.start();
      wallet.startSweeper();
      const address = server.address() as AddressInfo;
      return `http://${host}:${address.port}`;
    },
    async stop(): Promise<void> {
      ops.close();
      await wallet.close(); // sweeper and the rate limits' Redis connection
      await feed.stop(); // ends every feed stream cleanly before the connections are closed
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
