import type { ServerResponse } from "node:http";

/** Writes a JSON body with open CORS. `headers` adds to (or overrides) the defaults. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "access-control-allow-origin": "*",
    ...headers,
  });
  res.end(res.req?.method === "HEAD" ? undefined : text);
}
