import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPgPool } from "@agent-ledger/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { parsedBy } from "../src/routes/parsedBy.ts";
import { createRouter } from "../src/routes/createRouter.ts";
import type { JsonRoute, RouteRequest } from "../src/routes/Route.ts";
import { READ_SURFACE, WEBHOOK_SURFACE } from "../src/routes/surfaces.ts";
import { decodeIdCursor } from "../src/services/cursor.ts";
import { parseLimit } from "../src/services/parseLimit.ts";
import { silentLog } from "./support/startTestApp.ts";

// The router is the one place a route's declared input is checked (routes/parseRouteInput.ts): over real HTTP, a
// route's query and body schemas answer the code an issue states (routes/parsedBy.ts, a refinement's params.code) with
// its message, or invalid_query / invalid_body; the handler gets the parsed values; the query is each name's first
// value, undeclared names are dropped; bad bodies are 4xx, never 500.

const seen: unknown[] = [];
const echo = async ({ query, body }: RouteRequest<unknown, unknown>) => {
  seen.push({ query, body });
  return { body: { query: JSON.parse(JSON.stringify(query, (_k, v) => (typeof v === "bigint" ? v.toString() : v))), body: body ?? null } };
};

const PAGE = z.object({
  limit: parsedBy((v: string | undefined) => parseLimit(v, 50, 100)),
  cursor: parsedBy((v: string | undefined) => decodeIdCursor(v)),
  w: z
    .string()
    .default("24h")
    .refine((w) => ["24h", "7d"].includes(w), { message: "window must be 24h or 7d", params: { code: "invalid_window" } }),
  plain: z.string().max(3).optional(),
  odd: z
    .string()
    .optional()
    .refine((v) => v !== "x", { message: "not x", params: { code: "no_such_code" } }),
});

const BODY = z.object({
  name: z.string().max(10),
  since: parsedBy((v: unknown) => {
    if (v !== undefined && typeof v !== "string") throw new z.ZodError([]);
    return v ?? null;
  }),
  amount: z
    .unknown()
    .optional()
    .superRefine((v, ctx) => {
      if (v !== undefined && typeof v !== "string")
        ctx.addIssue({ code: "custom", message: "amount must be a decimal string", params: { code: "invalid_amount" } });
    }),
});

const routes: JsonRoute[] = [
  { method: "GET", path: "/api/page", auth: "none", input: { query: PAGE }, surface: READ_SURFACE, handle: echo, openapi: { omit: "test route" } },
  { method: "POST", path: "/api/thing", auth: "none", input: { body: BODY }, surface: WEBHOOK_SURFACE, handle: echo, openapi: { omit: "test route" } },
  { method: "GET", path: "/api/raw", auth: "none", surface: READ_SURFACE, handle: echo, openapi: { omit: "test route" } },
];

let server: Server;
let url: string;
// Never queried (every route here is auth none); the router only holds it.
const pool = createPgPool("postgres://postgres@127.0.0.1:5432/postgres", { max: 1 });

beforeAll(async () => {
  const handle = createRouter({
    mounted: routes.map((route) => ({ path: route.path, route, deps: {} })),
    db: pool,
    log: silentLog,
    now: () => new Date(),
    origins: new Set(),
    fallback: async (_req, res) => void res.writeHead(404).end(),
  });
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await pool.end();
});

async function call(path: string, init?: RequestInit) {
  const res = await fetch(`${url}${path}`, init);
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string }; query?: unknown; body?: unknown } };
}
const post = (body: string, type = "application/json") => ({ method: "POST", headers: { "content-type": type }, body });

describe("a route's declared query", () => {
  it("answers the code and message its parser states (parsedBy)", async () => {
    expect(await call("/api/page?limit=0")).toEqual({
      status: 400,
      body: { error: { code: "invalid_limit", message: "limit must be an integer from 1 to 100" } },
    });
    expect(await call("/api/page?cursor=%25%25%25")).toEqual({
      status: 400,
      body: { error: { code: "invalid_cursor", message: "cursor is not one this API issued" } },
    });
  });

  it("answers the code a refinement states in params.code; an unknown code or a plain issue is invalid_query", async () => {
    expect(await call("/api/page?w=1h")).toEqual({ status: 400, body: { error: { code: "invalid_window", message: "window must be 24h or 7d" } } });
    expect((await call("/api/page?plain=long")).body.error).toEqual({ code: "invalid_query", message: expect.stringContaining("3") });
    expect(await call("/api/page?odd=x")).toEqual({ status: 400, body: { error: { code: "invalid_query", message: "not x" } } });
  });

  it("the first failing parameter in the schema's order answers", async () => {
    expect((await call("/api/page?cursor=%25&limit=0")).body.error!.code).toBe("invalid_limit");
  });

  it("hands the handler the parsed values: defaults, each name's first value, undeclared names dropped", async () => {
    seen.length = 0;
    const res = await call("/api/page?limit=5&limit=500&w=7d&w=bogus&extra=1&__proto__=x&constructor=y");
    expect(res).toEqual({ status: 200, body: { query: { limit: 5, cursor: null, w: "7d" }, body: null } });
    expect(seen[0]).toEqual({ query: { limit: 5, cursor: null, w: "7d" }, body: undefined });
    expect((await call("/api/page")).body.query).toEqual({ limit: 50, cursor: null, w: "24h" });
  });

  it("a route that declares no query gets the URLSearchParams, unchecked", async () => {
    seen.length = 0;
    expect((await call("/api/raw?limit=0")).status).toBe(200);
    expect((seen[0] as { query: URLSearchParams }).query.get("limit")).toBe("0");
  });
});

describe("a route's declared body", () => {
  it("answers the code a schema states, else invalid_body with the issue's message; the handler gets the parsed body", async () => {
    expect(await call("/api/thing", post(JSON.stringify({ name: "a", amount: 5 })))).toEqual({
      status: 400,
      body: { error: { code: "invalid_amount", message: "amount must be a decimal string" } },
    });
    expect((await call("/api/thing", post(JSON.stringify({ name: 5 })))).body.error!.code).toBe("invalid_body");
    expect((await call("/api/thing", post("[1]"))).body.error!.code).toBe("invalid_body");
    expect(await call("/api/thing", post(JSON.stringify({ name: "a", more: 1 })))).toEqual({
      status: 200,
      body: { query: {}, body: { name: "a", since: null } },
    });
  });

  it("a parser that throws something other than an ApiError is a 500 (a bug), not a client error", async () => {
    expect((await call("/api/thing", post(JSON.stringify({ name: "a", since: 5 })))).status).toBe(500);
  });

  it("control characters, deep nesting, huge bodies and other media types are 4xx, never 500", async () => {
    expect((await call("/api/thing", post(JSON.stringify({ name: "a\u0000\u001f\u2028" })))).status).toBe(200);
    expect((await call("/api/thing", post('{"name":"a\u0000"}'))).body.error!.code).toBe("invalid_body");
    expect((await call("/api/thing", post(`${"[".repeat(5000)}${"]".repeat(5000)}`))).body.error).toEqual({
      code: "invalid_body",
      message: "the JSON is nested more than 64 levels deep",
    });
    expect((await call("/api/thing", post(JSON.stringify({ name: "x".repeat(70_000) })))).status).toBe(413);
    expect((await call("/api/thing", post("name=a", "application/x-www-form-urlencoded"))).status).toBe(415);
    expect((await call("/api/thing", post("{not json"))).body.error).toEqual({ code: "invalid_body", message: "the body is not valid JSON" });
  });
});
