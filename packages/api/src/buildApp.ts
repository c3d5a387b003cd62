import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createReadRouting, type ReadRouting } from "@agent-ledger/db";
import type pg from "pg";
import type { Logger } from "pino";
import { createApprovalPageHandler, createWebHandler } from "@agent-ledger/web";
import { authenticate } from "./auth/authenticate.ts";
import { ownOrigins } from "./auth/checkRequestOrigin.ts";
import { createFeed, type Feed } from "./feed/createFeed.ts";
import type { FeedOptions } from "./feed/types.ts";
import { createGraphqlHandler, type GraphqlLimits } from "./graphql/createGraphqlHandler.ts";
import { answerClientError } from "./http/answerClientError.ts";
import { sendError } from "./http/sendError.ts";
import { createMcpEndpoint } from "./mcp/createMcpEndpoint.ts";
import { createOps } from "./ops/createOps.ts";
import type { ReadinessOptions } from "./ops/createReadiness.ts";
import { getOpenApi } from "./rest/getOpenApi.ts";
import { buildOpenApiDocument } from "./routes/buildOpenApiDocument.ts";
import { createRouter } from "./routes/createRouter.ts";
import { ALL_ROUTES, mountRoutes } from "./routes/mountRoutes.ts";
import { createServices, type Services } from "./services/createServices.ts";
import { pageExists } from "./services/pageExists.ts";
import { resolveWalletConfig, type WalletOptions } from "./wallet/config.ts";
import { createWalletHandler, type WalletDeps } from "./wallet/createWalletHandler.ts";
import type { Lookup } from "./webhooks/checkCallbackHost.ts";
import { createWebhookService } from "./webhooks/createWebhookService.ts";

export interface AppDeps {
  /** The primary: every write, everything that must read its own writes, the live feed's LISTEN and rows. */
  pool: pg.Pool;
  /**
   * Streaming replicas of `pool` for the public reads (DATABASE_READ_URLS; docs/operations.md, "Read replicas"). Absent
   * or empty = every read on `pool`, as before. Their pools are the caller's: it ends them after `stop()`.
   */
  readPools?: { name: string; pool: pg.Pool }[];
  /** Read routing: the lag bound in indexer blocks (default 10) and the probe interval (default 1000 ms). */
  readRouting?: { maxLagBlocks?: number; checkIntervalMs?: number; probeTimeoutMs?: number };
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

/** Response header: the ledger block a public read answer is bounded by (docs/api.md, "Read replicas"). */
export const LEDGER_BLOCK_HEADER = "x-ledger-block";
/** Request header: answer from a source that has at least this block (the X-Ledger-Block of an earlier answer). */
export const LEDGER_MIN_BLOCK_HEADER = "x-ledger-min-block";

/** A decimal block number from `X-Ledger-Min-Block`; anything else (absent, repeated, malformed) is no hint. */
function minBlockOf(value: string | string[] | undefined): number | null {
  if (typeof value !== "string" || !/^[0-9]{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}

export interface App {
  server: Server;
  services: Services;
  /** Read routing over the replicas (null without `readPools`). */
  readRouting: ReadRouting | null;
  /** The live feed (its hub is null while disabled); `feed.subscriberCount()` feeds the metrics. */
  feed: Feed;
  /** Listens and returns the base URL (`port` 0 picks a free port). */
  start(port: number, host?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The HTTP app: one route table (routes/mountRoutes.ts: the read API, webhooks, the wallet, MCP, the live feed, GraphQL,
 * the approval page, `/healthz`, `/readyz`, `/metrics`) behind one router (routes/createRouter.ts), the explorer pages
 * as the fallback; every request gets an `x-request-id` and one log line (ops/). REST and GraphQL call the same services.
 */
export function buildApp(deps: AppDeps): App {
  // Public reads on replicas (docs/operations.md, "Read replicas"): the read services, hence REST reads, public GraphQL
  // types, the pages' first answers and existence checks, and MCP's read tools (which call this API). The rest stays on
  // deps.pool: webhooks, the wallet and owner console, authentication, ops' own checks, the feed, every write.
  const readRouting = deps.readPools?.length
    ? createReadRouting({
        primary: deps.pool,
        replicas: deps.readPools,
        maxLagBlocks: deps.readRouting?.maxLagBlocks,
        checkIntervalMs: deps.readRouting?.checkIntervalMs,
        probeTimeoutMs: deps.readRouting?.probeTimeoutMs,
        now: deps.now,
        log: (e) =>
          deps.log[e.change === "up" || e.change === "eligible" ? "info" : "warn"]({ replica: e.source, change: e.change, reason: e.reason }, "read replica"),
      })
    : null;
  // `X-Ledger-Block` on public read answers to a request that carries `X-Ledger-Min-Block` (`0` to start): a client
  // that sends it back to any API process never sees a row it was shown here disappear (docs/api.md). Only on request:
  // naming the block waits for a probe sent after the answer's reads, a round trip bench:api measured as most of the
  // routing's cost per request (BENCHMARKS.md, bench:api replica mode); within one process the watermark holds anyway.
  const readHeaders = readRouting
    ? async (req: IncomingMessage): Promise<Record<string, string>> => {
        // Vary: an answer for one minimum block is not an answer for another (a CDN keys them apart; docs/api.md, Caching).
        const vary = { vary: LEDGER_MIN_BLOCK_HEADER };
        if (req.headers[LEDGER_MIN_BLOCK_HEADER] === undefined) return vary;
        const block = await readRouting.servedBlock();
        // Exposed to pages on other origins (both surfaces that carry it answer CORS with `*`).
        return block === null ? vary : { ...vary, [LEDGER_BLOCK_HEADER]: String(block), "access-control-expose-headers": LEDGER_BLOCK_HEADER };
      }
    : undefined;
  const services = createServices({
    db: readRouting?.reader ?? deps.pool,
    version: deps.methodologyVersion,
    now: deps.now,
    dashboardCacheTtlMs: deps.dashboardCacheTtlMs,
  });
  const webhookService = createWebhookService({
    db: deps.pool,
    masterKey: deps.webhooks?.masterKey ?? null,
    production: deps.webhooks?.production ?? false,
    lookup: deps.webhooks?.lookup,
    now: deps.now,
    methodologyVersion: deps.methodologyVersion,
  });
  const { onPayTiming, chain: walletChain, ...walletOptions } = deps.wallet ?? {};
  const wallet = createWalletHandler({ db: deps.pool, log: deps.log, options: walletOptions, now: deps.now, onPayTiming, chain: walletChain });
  const now = deps.now ?? (() => new Date());
  const graphql = createGraphqlHandler({
    services,
    log: deps.log,
    limits: deps.graphqlLimits,
    webhooks: webhookService,
    wallet: wallet.ctx,
    // Cacheable operations (dashboard) are kept as long as the dashboard itself (0 = none).
    responseCache: { ttlMs: deps.dashboardCacheTtlMs ?? 5_000 },
    authenticate: (headers, options) => authenticate(deps.pool, headers, now(), options),
    readHeaders,
  });

  // Where our own pages run (PUBLIC_BASE_URL, WEBAUTHN_ORIGIN): the only origins the session cookie may act from.
  const walletConfig = resolveWalletConfig(walletOptions);
  const origins = ownOrigins(walletConfig.publicBaseUrl, walletConfig.origins);

  // The feed LISTENs and loads its rows on the primary (deps.pool), whatever the read services use.
  const feed = createFeed({ pool: deps.pool, services, log: deps.log, options: deps.feed, graphqlLimits: deps.graphqlLimits });

  // The explorer, GraphiQL and the passkey approval page (packages/web, bundled by `npm run build`; docs/web.md).
  // Each page's HTML carries the answer to its first GraphQL request (the dashboard's one query, or the token
  // allowlist), computed by the public schema in-process exactly as a POST without credentials (response cache included).
  const web = createWebHandler({
    distDir: deps.web?.distDir,
    exists: (route) => pageExists(services.context, route),
    firstAnswer:
      deps.web?.firstAnswer === false
        ? undefined
        : async (request) => {
            const answer = await graphql.query(request);
            return answer && answer.response.status === 200 && answer.cacheable ? answer.response.body.toString() : null;
          },
  });
  const approvalPage = createApprovalPageHandler({ manifest: web.manifest });

  const ops = createOps({
    pool: deps.pool,
    log: deps.log,
    readiness: deps.readiness,
    feedSubscriberCount: deps.feedSubscriberCount ?? (() => feed.subscriberCount()),
    readRouting,
  });

  // MCP over Streamable HTTP (docs/mcp.md): its tools call this server over loopback, as the client that called /mcp.
  const mcp = createMcpEndpoint({ log: deps.log, server: () => server });

  // The one route table (routes/mountRoutes.ts): every surface's routes bound to what their handlers need. The OpenAPI
  // document is generated from the same table, so no route exists undocumented.
  const openApi = getOpenApi(buildOpenApiDocument(ALL_ROUTES));
  const route = createRouter({
    mounted: mountRoutes({
      read: { services, openApi },
      webhooks: { service: webhookService },
      wallet: wallet.routeDeps,
      app: { mcp, feed, graphql, graphiql: (req, res, url) => web.handle(req, res, url), approvalPage, ops },
    }),
    db: deps.pool,
    log: deps.log,
    now,
    origins,
    readHeaders,
    // Outside /api, what no route took: the generic preflight, then the explorer pages, /assets/*, the HTML 404 page.
    async fallback(req, res, url) {
      if (req.method === "OPTIONS") {
        res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, OPTIONS" });
        return void res.end();
      }
      if (await web.handle(req, res, url)) return;
      sendError(res, "not_found", `no route for ${req.method} ${url.pathname}`);
    },
  });

  const server: Server = createServer(
    ops.instrument(async (req, res) => {
      mcp.adopt(req);
      try {
        // One request, one read source (read routing): at least the block the client asks for.
        if (readRouting) await readRouting.scope({ minBlock: minBlockOf(req.headers[LEDGER_MIN_BLOCK_HEADER]) }, () => route(req, res));
        else await route(req, res);
      } catch (error) {
        deps.log.error({ err: error }, "unhandled request error");
        if (!res.headersSent) sendError(res, "internal_error", "internal error");
        else res.destroy();
      }
    }),
  );

  // Requests Node's parser refuses (URL or headers over 16 KiB, malformed) still get the JSON error body.
  server.on("clientError", answerClientError);

  return {
    server,
    services,
    readRouting,
    feed,
    async start(port: number, host = "127.0.0.1"): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      readRouting?.start();
      feed.start();
      wallet.startSweeper();
      const address = server.address() as AddressInfo;
      return `http://${host}:${address.port}`;
    },
    async stop(): Promise<void> {
      readRouting?.stop();
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
