import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** GET /metrics (Prometheus text format) and GET /healthz on a small HTTP server, bound to `host` (default loopback only). */
export async function startMetricsServer(registry: Registry, options: { port: number; host?: string }): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/metrics") {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { "Content-Type": registry.contentType });
          res.end(text);
        },
        (error: Error) => {
          res.writeHead(500, { "Content-Type": "text/plain" });
          res.end(error.message);
        },
      );
      return;
    }
    if (req.method === "GET" && path === "/healthz") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"ok":true}');
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
