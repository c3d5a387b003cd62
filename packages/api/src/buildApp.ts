import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import type { Logger } from "pino";
import { createGraphqlHandler, type GraphqlLimits } from "./graphql/createGraphqlHandler.ts";
import { sendError } from "./http/sendError.ts";
import { sendJson } from "./http/sendJson.ts";
import { createRestHandler } from "./rest/createRestHandler.ts";
import { createServices, type Services } from "./services/createServices.ts";

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
}

export interface App {
  server: Server;
  services: Services;
  /** Listens and returns the base URL (`port` 0 picks a free port). */
  start(port: number, host?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The HTTP app: `/healthz` (liveness), `/readyz` (database + indexer checkpoint), `/graphql` (GraphQL + GraphiQL)
 * and the REST shims under `/api`. REST and GraphQL both call the same services.
 */
export function buildApp(deps: AppDeps): App {
  const services = createServices({
    db: deps.pool,
    version: deps.methodologyVersion,
    now: deps.now,
    dashboardCacheTtlMs: deps.dashboardCacheTtlMs,
  });
  const rest = createRestHandler({ services, log: deps.log });
  const graphql = createGraphqlHandler({ services, log: deps.log, limits: deps.graphqlLimits });

  const server: Server = createServer(async (req, res) => {
    try {
      let url: URL;
      try {
        url = new URL(req.url ?? "/", "http://localhost");
      } catch {
        return sendError(res, 404, "not_found", "unparsable request target");
      }
      if (url.pathname === "/graphql") {
        if (req.method === "OPTIONS") {
          res.writeHead(204, GRAPHQL_PREFLIGHT_HEADERS);
          return void res.end();
        }
        res.setHeader("access-control-allow-origin", "*"); // merged into the headers yoga writes
        return void (await graphql(req, res));
      }
      if (url.pathname === "/api" || url.pathname.startsWith("/api/")) return await rest(req, res, url);
      if (req.method === "OPTIONS") {
        res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, OPTIONS" });
        return void res.end();
      }
      if (url.pathname === "/healthz") {
        if (req.method !== "GET" && req.method !== "HEAD") return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`, { allow: "GET, HEAD" });
        return sendJson(res, 200, { ok: true }, { "cache-control": "no-store" });
      }
      if (url.pathname === "/readyz") {
        if (req.method !== "GET" && req.method !== "HEAD") return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`, { allow: "GET, HEAD" });
        try {
          const { rows } = await deps.pool.query("SELECT id, last_block::text, updated_at FROM indexer_checkpoints ORDER BY updated_at DESC LIMIT 1");
          return sendJson(
            res,
            200,
            { ok: true, database: "ok", indexer: rows[0] ? { stream: rows[0].id, last_block: Number(rows[0].last_block), updated_at: rows[0].updated_at } : null },
            { "cache-control": "no-store" },
          );
        } catch (error) {
          deps.log.warn({ err: (error as Error).message }, "readiness check failed");
          return sendError(res, 503, "not_ready", "database unreachable");
        }
      }
      return sendError(res, 404, "not_found", `no route for ${req.method} ${url.pathname}`);
    } catch (error) {
      deps.log.error({ err: error }, "unhandled request error");
      if (!res.headersSent) sendError(res, 500, "internal_error", "internal error");
      else res.destroy();
    }
  });

  return {
    server,
    services,
    async start(port: number, host = "127.0.0.1"): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      return `http://${host}:${address.port}`;
    },
    async stop(): Promise<void> {
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
