import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import type { Logger } from "pino";
import { sendError, sendJson } from "./httpError.ts";

export interface AppDeps {
  pool: pg.Pool;
  log: Logger;
}

/**
 * The HTTP app. For now: liveness (`/healthz`), readiness (`/readyz`: database reachable, indexer
 * checkpoint) and JSON 404/405 errors; the read API, wallet and webhooks mount here next.
 */
export function buildApp(deps: AppDeps) {
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.method === "OPTIONS") {
        res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, POST, DELETE, OPTIONS", "access-control-allow-headers": "authorization, content-type, last-event-id" });
        return res.end();
      }
      if (url.pathname === "/healthz") {
        if (req.method !== "GET") return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`);
        return sendJson(res, 200, { ok: true });
      }
      if (url.pathname === "/readyz") {
        if (req.method !== "GET") return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`);
        try {
          const { rows } = await deps.pool.query("SELECT id, last_block::text, updated_at FROM indexer_checkpoints ORDER BY updated_at DESC LIMIT 1");
          return sendJson(res, 200, { ok: true, database: "ok", indexer: rows[0] ? { stream: rows[0].id, last_block: Number(rows[0].last_block), updated_at: rows[0].updated_at } : null });
        } catch (error) {
          deps.log.warn({ err: (error as Error).message }, "readiness check failed");
          return sendError(res, 503, "not_ready", "database unreachable");
        }
      }
      return sendError(res, 404, "not_found", `no route for ${req.method} ${url.pathname}`);
    } catch (error) {
      deps.log.error({ err: error }, "unhandled request error");
      if (!res.headersSent) sendError(res, 500, "internal_error", "internal error");
    }
  });

  return {
    server,
    async start(port: number, host = "127.0.0.1"): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      return `http://${host}:${address.port}`;
    },
    async stop(): Promise<void> {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
