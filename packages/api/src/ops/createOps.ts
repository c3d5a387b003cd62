import type { IncomingMessage, ServerResponse } from "node:http";
import type { ReadRouting } from "@agent-ledger/db";
import type pg from "pg";
import type { Logger } from "pino";
import { sendError } from "../http/sendError.ts";
import { sendJson } from "../http/sendJson.ts";
import { createMetrics, methodLabel } from "./createMetrics.ts";
import { createReadiness, describeFailures, type ReadinessOptions } from "./createReadiness.ts";
import { REQUEST_ID_HEADER, requestIdOf } from "./requestId.ts";
import { routeLabel } from "./routeLabel.ts";

export interface OpsDeps {
  pool: Pick<pg.Pool, "query">;
  log: Logger;
  readiness?: ReadinessOptions;
  feedSubscriberCount?: () => number;
  /** Read routing over replicas: reported by /readyz (never failing it) and /metrics. */
  readRouting?: ReadRouting | null;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

const MAX_LOGGED_PATH = 200;

/** The request target's path without its query string (which may carry search text or tokens: never logged). */
function pathOf(target: string | undefined): string {
  const raw = target ?? "/";
  const q = raw.indexOf("?");
  let path = q >= 0 ? raw.slice(0, q) : raw;
  if (!path.startsWith("/")) {
    try {
      path = new URL(path).pathname; // absolute-form (proxies)
    } catch {
      path = "/";
    }
  }
  return path;
}

/**
 * Operability around the app: request ids (incoming `x-request-id` when valid, else a UUID; echoed on every
 * response), one JSON log line per request, Prometheus metrics (`/metrics`), and readiness (`/readyz`).
 */
export function createOps(deps: OpsDeps) {
  const log = deps.log;
  const readiness = createReadiness(deps.pool, deps.readiness, deps.readRouting ?? null);
  const metrics = createMetrics({
    feedSubscriberCount: deps.feedSubscriberCount,
    readRouting: deps.readRouting ? () => deps.readRouting!.status() : undefined,
    beforeScrape: async () => {
      const ix = await readiness.checkIndexer();
      metrics.setIndexerLag(ix.lagBlocks, ix.ageSeconds);
    },
  });

  function notAllowed(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    if (req.method === "GET" || req.method === "HEAD") return false;
    sendError(res, "method_not_allowed", `${req.method} is not allowed on ${path}`, { allow: "GET, HEAD" });
    return true;
  }

  return {
    metrics,
    readiness,

    /** Wraps the app's request listener: request id, metrics by route template, one log line per request. */
    instrument(handler: Listener): Listener {
      return (req, res) => {
        const started = performance.now();
        const reqId = requestIdOf(req);
        res.setHeader(REQUEST_ID_HEADER, reqId);
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          const ms = performance.now() - started;
          const path = pathOf(req.url);
          const route = routeLabel(path);
          // Headers never sent: the client went away first (nginx's 499).
          const status = res.headersSent ? res.statusCode : 499;
          const stream = String(res.getHeader("content-type") ?? "").startsWith("text/event-stream");
          metrics.observeRequest(methodLabel(req.method), route, status, ms / 1000, stream);
          log.info(
            {
              reqId,
              method: req.method,
              route,
              path: path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path,
              status,
              durationMs: Math.round(ms * 100) / 100,
              ...(res.writableFinished ? {} : { aborted: true }),
            },
            "request",
          );
        };
        res.once("finish", finish);
        res.once("close", finish);
        return handler(req, res);
      };
    },

    /** GET /readyz: 200 with every check when all pass, else 503 with the same body (+ `error`). */
    async readyz(req: IncomingMessage, res: ServerResponse): Promise<void> {
      if (notAllowed(req, res, "/readyz")) return;
      const report = await readiness.check();
      metrics.setIndexerLag(report.checks.indexer.lagBlocks, report.checks.indexer.ageSeconds);
      if (report.ok) return sendJson(res, 200, report, { "cache-control": "no-store" });
      const message = describeFailures(report);
      log.warn({ checks: report.checks, reason: message }, "readiness check failed");
      sendJson(res, 503, { ...report, error: { code: "not_ready", message } }, { "cache-control": "no-store" });
    },

    /** GET /metrics: Prometheus text exposition of this app's registry. */
    async metricsEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
      if (notAllowed(req, res, "/metrics")) return;
      const text = await metrics.render();
      res.writeHead(200, { "content-type": metrics.contentType, "content-length": String(Buffer.byteLength(text)), "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : text);
    },

    close(): void {
      readiness.close();
    },
  };
}

export type Ops = ReturnType<typeof createOps>;
