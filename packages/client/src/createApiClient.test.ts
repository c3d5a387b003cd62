import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiCallError } from "./ApiCallError.ts";
import { createApiClient } from "./createApiClient.ts";

// A real HTTP server on loopback answering like the API does (and like things in front of it do), and the client's
// view of each answer: data, or one ApiCallError with the code, status, message and Retry-After seconds.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}
let server: Server;
let base: string;
let seen: Seen[] = [];

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = new URL(req.url!, "http://x").pathname;
      switch (path) {
        case "/api/echo":
          return answer(res, 200, JSON.stringify({ method: req.method, url: req.url, body: body ? JSON.parse(body) : null }));
        case "/api/created":
          return answer(res, 202, JSON.stringify({ status: "pending" }), { "retry-after": "3" });
        case "/api/empty":
          res.writeHead(204);
          return res.end();
        case "/api/limited":
          return answer(res, 429, JSON.stringify({ error: { code: "rate_limited", message: "too many requests" } }), { "retry-after": "42" });
        case "/api/limited-until":
          return answer(res, 503, JSON.stringify({ error: { code: "rate_limit_unavailable", message: "later" } }), {
            "retry-after": "Sun, 22 Nov 2026 06:01:30 GMT",
          });
        case "/api/forbidden":
          return answer(res, 403, JSON.stringify({ error: { code: "cap_exceeded", message: "over the per-call cap" } }));
        case "/api/proxy":
          res.writeHead(502, "Bad Gateway", { "content-type": "text/html" });
          return res.end("<html>bad gateway</html>");
        case "/api/html":
          res.writeHead(200, { "content-type": "text/html" });
          return res.end("<html>hello</html>");
        case "/api/slow":
          return void setTimeout(() => answer(res, 200, "{}"), 2_000).unref();
        case "/graphql": {
          const { query } = JSON.parse(body) as { query: string };
          if (query.includes("broken"))
            return answer(res, 200, JSON.stringify({ data: null, errors: [{ message: "id is not valid", extensions: { code: "invalid_id" } }] }));
          if (query.includes("busy"))
            return answer(res, 429, JSON.stringify({ errors: [{ message: "slow down", extensions: { code: "rate_limited" } }] }), { "retry-after": "7" });
          if (query.includes("bare")) return answer(res, 200, JSON.stringify({ errors: [{ message: "no code" }] }));
          if (query.includes("down")) return answer(res, 503, JSON.stringify({ error: { code: "db_unavailable", message: "the database is down" } }));
          return answer(res, 200, JSON.stringify({ data: { echo: JSON.parse(body).variables } }));
        }
        default:
          return answer(res, 404, JSON.stringify({ error: { code: "not_found", message: `no route ${path}` } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const caught = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable("resolved"),
    (e: unknown) => e,
  );

describe("createApiClient", () => {
  it("sends JSON with the query, headers and bearer, and answers the parsed JSON with status and headers", async () => {
    seen = [];
    const client = createApiClient({ baseUrl: `${base}/`, bearer: "tok_default", headers: { "user-agent": "test/1" } });
    const r = await client.request<{ method: string; url: string; body: unknown }>("POST", "/api/echo?a=1", {
      body: { amount_wei: "1" },
      query: { b: "2", c: undefined },
      headers: { "idempotency-key": "k" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ method: "POST", url: "/api/echo?a=1&b=2", body: { amount_wei: "1" } });
    expect(seen[0]!.headers).toMatchObject({
      authorization: "Bearer tok_default",
      "user-agent": "test/1",
      "idempotency-key": "k",
      "content-type": "application/json",
      accept: "application/json",
    });
    await client.request("GET", "/api/echo", { bearer: "tok_call" });
    await client.request("GET", "/api/echo", { bearer: null });
    expect(seen[1]!.headers.authorization).toBe("Bearer tok_call");
    expect(seen[2]!.headers.authorization).toBeUndefined();
    expect(seen[2]!.headers["content-type"]).toBeUndefined();
  });

  it("answers a 2xx other than 200 with its headers, and an empty body as null", async () => {
    const client = createApiClient({ baseUrl: base });
    const pending = await client.request("POST", "/api/created", { body: {} });
    expect(pending).toMatchObject({ status: 202, body: { status: "pending" } });
    expect(pending.headers.get("retry-after")).toBe("3");
    expect(await client.request("DELETE", "/api/empty")).toMatchObject({ status: 204, body: null });
  });

  it("turns the error envelope into ApiCallError with code, status, message and Retry-After seconds", async () => {
    const client = createApiClient({ baseUrl: base, now: () => new Date("2026-11-22T06:00:00Z") });
    const limited = await caught(client.request("GET", "/api/limited"));
    expect(limited).toBeInstanceOf(ApiCallError);
    expect(limited).toMatchObject({ name: "ApiCallError", status: 429, code: "rate_limited", message: "too many requests", retryAfterSeconds: 42 });
    expect(await caught(client.request("GET", "/api/limited-until"))).toMatchObject({ status: 503, code: "rate_limit_unavailable", retryAfterSeconds: 90 });
    expect(await caught(client.request("POST", "/api/forbidden", { body: {} }))).toMatchObject({
      status: 403,
      code: "cap_exceeded",
      message: "over the per-call cap",
      retryAfterSeconds: null,
    });
    expect(await caught(client.request("GET", "/api/nope"))).toMatchObject({ status: 404, code: "not_found" });
  });

  it("names a non-JSON error answer by its status, and refuses a 2xx that is not JSON", async () => {
    const client = createApiClient({ baseUrl: base });
    expect(await caught(client.request("GET", "/api/proxy"))).toMatchObject({
      status: 502,
      code: "http_502",
      message: "GET /api/proxy answered 502 Bad Gateway",
    });
    expect(await caught(client.request("GET", "/api/html"))).toMatchObject({ status: 200, code: "invalid_answer" });
  });

  it("reports no answer as status 0 api_unreachable: refused connection and timeout", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await caught(createApiClient({ baseUrl: `http://127.0.0.1:${port}` }).request("GET", "/api/echo"));
    expect(refused).toMatchObject({
      status: 0,
      code: "api_unreachable",
      message: `cannot reach the API at http://127.0.0.1:${port} (ECONNREFUSED)`,
      retryAfterSeconds: null,
    });
    expect((refused as Error).cause).toBeInstanceOf(Error);
    const slow = await caught(createApiClient({ baseUrl: base, timeoutMs: 5_000 }).request("GET", "/api/slow", { timeoutMs: 200 }));
    expect(slow).toMatchObject({ status: 0, code: "api_unreachable", message: `cannot reach the API at ${base} (no answer within 0.2 s)` });
    expect(((slow as Error).cause as Error).name).toBe("TimeoutError");
  });

  it("rejects with the caller's abort reason, not as unreachable", async () => {
    const ac = new AbortController();
    const call = caught(createApiClient({ baseUrl: base }).request("GET", "/api/slow", { signal: ac.signal }));
    setTimeout(() => ac.abort(new Error("interrupted")), 50);
    const error = await call;
    expect(error).not.toBeInstanceOf(ApiCallError);
    expect((error as Error).message).toBe("interrupted");
  });

  it("posts GraphQL and maps its errors' extensions.code the same way", async () => {
    seen = [];
    const client = createApiClient({ baseUrl: base });
    expect(await client.graphql("{ echo }", { id: "7" })).toEqual({ echo: { id: "7" } });
    expect(seen[0]).toMatchObject({ method: "POST", url: "/graphql" });
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(await caught(client.graphql("{ broken }"))).toMatchObject({ status: 200, code: "invalid_id", message: "id is not valid" });
    expect(await caught(client.graphql("{ busy }"))).toMatchObject({ status: 429, code: "rate_limited", message: "slow down", retryAfterSeconds: 7 });
    expect(await caught(client.graphql("{ bare }"))).toMatchObject({ code: "graphql_error", message: "no code" });
    expect(await caught(client.graphql("{ down }"))).toMatchObject({ status: 503, code: "db_unavailable", message: "the database is down" });
  });
});
