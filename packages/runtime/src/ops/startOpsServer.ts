import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The operations port of a service process (the indexer's INDEXER_METRICS_PORT, the worker's WORKER_METRICS_PORT):
 * GET /metrics (Prometheus text format, `contentType`) and GET /healthz (`{ ok: true, …status() }`) on a small HTTP
 * server bound to `host` (default loopback only: put it behind your scraper's network, never on a public address).
 * HEAD works on both; another method is 405 and another path 404, as `{ "error": { code, message } }`.
 */
export async function startOpsServer(options: {
  /** 0 picks a free port (see the returned `port`). */
  port: number;
  host?: string;
  metrics: () => Promise<string>;
  contentType: string;
  /** Extra fields of /healthz (the indexer's leadership, head, checkpoint, lag). */
  status?: () => Record<string, unknown>;
}): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const read = req.method === "GET" || req.method === "HEAD";
    if (read && path === "/metrics") {
      options.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": options.contentType, "cache-control": "no-store" });
          res.end(req.method === "HEAD" ? undefined : text);
        },
        (error: Error) => {
          res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
          res.end(JSON.stringify({ error: { code: "internal_error", message: error.message } }));
        },
      );
      return;
    }
    if (read && path === "/healthz") {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : JSON.stringify({ ok: true, ...options.status?.() }));
      return;
    }
    const known = path === "/metrics" || path === "/healthz";
    res.writeHead(known ? 405 : 404, { "content-type": "application/json; charset=utf-8", ...(known ? { allow: "GET, HEAD" } : {}) });
    res.end(
      JSON.stringify({
        error: known
          ? { code: "method_not_allowed", message: `${req.method} is not allowed on ${path}` }
          : { code: "not_found", message: `no route for ${req.method} ${path}` },
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
