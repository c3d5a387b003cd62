import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoopbackRegistry } from "./createLoopbackFetch.ts";

// The loopback fetch of /mcp's tools against a real HTTP server: the request arrives as the MCP caller (its address,
// its X-Forwarded-For, its request id), and no other connection is ever given another address.

let server: Server;
const seen: { remoteAddress: string | undefined; headers: IncomingHttpHeaders; body: string }[] = [];
const registry = createLoopbackRegistry(() => server);

beforeAll(async () => {
  server = createServer(async (req, res) => {
    registry.adopt(req);
    let body = "";
    for await (const c of req) body += c;
    seen.push({ remoteAddress: req.socket.remoteAddress, headers: req.headers, body });
    res.writeHead(req.url === "/empty" ? 204 : 201, { "content-type": "application/json", "x-test": "1" });
    res.end(req.url === "/empty" ? undefined : JSON.stringify({ ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("createLoopbackRegistry", () => {
  it("delivers the request as the MCP caller: its address, X-Forwarded-For and request id; the answer as a Response", async () => {
    const fetchAs = registry.fetchFor({ remoteAddress: "203.0.113.7", forwardedFor: "198.51.100.1, 203.0.113.7", requestId: "req-1" });
    const res = await fetchAs("http://ignored.example/api/x?y=1", {
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": "application/json" },
      body: '{"a":"é"}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-test")).toBe("1");
    expect(await res.json()).toEqual({ ok: true });
    const got = seen.at(-1)!;
    expect(got.remoteAddress).toBe("203.0.113.7");
    expect(got.headers).toMatchObject({ authorization: "Bearer t", "x-forwarded-for": "198.51.100.1, 203.0.113.7", "x-request-id": "req-1" });
    expect(got.body).toBe('{"a":"é"}');
    const empty = await fetchAs("http://ignored.example/empty", { method: "GET", headers: {} });
    expect(empty.status).toBe(204);
  });

  it("leaves every other connection's address alone", async () => {
    const { port } = server.address() as { port: number };
    await fetch(`http://127.0.0.1:${port}/direct`);
    expect(seen.at(-1)!.remoteAddress).toBe("127.0.0.1");
    expect(seen.at(-1)!.headers["x-forwarded-for"]).toBeUndefined();
  });
});
