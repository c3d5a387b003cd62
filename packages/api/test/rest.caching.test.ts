import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGGREGATE, DOCUMENT, EVENT, LIVE, SETTLED } from "../src/rest/readCache.ts";
import { READ_ROUTES } from "../src/rest/readRoutes.ts";
import { openApiPath } from "../src/routes/buildOpenApiDocument.ts";
import { createRouter } from "../src/routes/createRouter.ts";
import { ALL_ROUTES } from "../src/routes/mountRoutes.ts";
import type { JsonRoute, Surface } from "../src/routes/Route.ts";
import { OPS_SURFACE, READ_SURFACE, WALLET_SURFACE, WEBHOOK_SURFACE } from "../src/routes/surfaces.ts";
import { documentedResponse } from "./support/openapiCheck.ts";
import { readSamples } from "./support/readSamples.ts";
import { seedV03Ledger } from "./support/seedV03Ledger.ts";
import { silentLog, startTestApp, type TestApp } from "./support/startTestApp.ts";

// Caching at the edge (docs/api.md, Caching): every public read declares its Cache-Control on its route, and every 200
// of a policy other than no-store carries a strong ETag of its bytes and answers a matching If-None-Match (weakly
// compared, lists, *) with 304 and no body — GET and HEAD. The real app over a v0.3 ledger (support/seedV03Ledger.ts,
// the indexer's own write path) on a fixed clock, so identical requests give identical bytes; the no-store surfaces
// through the real router with routes of their own.

const NOW_S = 1_790_000_000;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
let sql: pg.Client;
let eventId: number;
const servers: Server[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await seedV03Ledger(db.url, NOW_S);
  t = await startTestApp(db.url, { methodologyVersion: "v0.3", now: () => new Date((NOW_S + 60) * 1000) });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  eventId = (await sql.query("SELECT min(id)::int AS id FROM agent_events")).rows[0].id;
}, 120_000);

afterAll(async () => {
  for (const s of servers) s.closeAllConnections(), s.close();
  await sql?.end();
  await t?.close();
  await db?.drop();
});

/** One request to each public read, by route template (a new read route without a sample fails "every read route…"). */
const SAMPLES = readSamples(() => eventId);

/** The policy a route declares for a URL (a value, or chosen from the URL). */
const declared = (route: JsonRoute, path: string) => {
  const policy = route.cacheControl!;
  return typeof policy === "function" ? policy(new URL(path, "http://x")) : policy;
};

async function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await fetch(t.url + path, { method, headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const reads = READ_ROUTES.map((route) => [route.path, route] as const);

describe("every public read declares what it may be cached for", () => {
  it("every read route declares a Cache-Control and has a sample here", () => {
    expect(READ_ROUTES.filter((r) => r.cacheControl === undefined).map((r) => r.path)).toEqual([]);
    expect(READ_ROUTES.filter((r) => !SAMPLES[r.path]).map((r) => r.path)).toEqual([]);
  });

  it("no route of a no-store surface (wallet, webhooks, ops) loosens it", () => {
    const loosened = ALL_ROUTES.filter((r) => r.kind !== "raw" && r.surface.cacheControl === "no-store" && r.cacheControl !== undefined);
    expect(loosened.map((r) => r.path)).toEqual([]);
    // and the document promises no 304 there
    const noStore = ALL_ROUTES.filter((r) => r.kind !== "raw" && r.method === "GET" && r.surface.cacheControl === "no-store" && !("omit" in r.openapi));
    expect(noStore.length).toBeGreaterThan(0);
    expect(noStore.filter((r) => documentedResponse("get", openApiPath(r.path), 304)).map((r) => r.path)).toEqual([]);
  });

  it("the policies are the documented ones, per path (docs/api.md, Caching)", () => {
    const table = Object.fromEntries(READ_ROUTES.map((r) => [r.path, declared(r, SAMPLES[r.path]!())]));
    expect(table).toEqual({
      "/api/dashboard": AGGREGATE,
      "/api/services": LIVE,
      "/api/services/:id": LIVE,
      "/api/services/:id/events": LIVE,
      "/api/agents": LIVE,
      "/api/agents/:id": LIVE,
      "/api/agents/:id/events": LIVE,
      "/api/events/:id": EVENT,
      "/api/search": LIVE,
      "/api/dashboard/previous": AGGREGATE,
      "/api/series": AGGREGATE,
      "/api/providers/:key": LIVE,
      "/api/openapi.json": DOCUMENT,
    });
    // the spec: the dashboard is cached 5 minutes at the edge
    expect(AGGREGATE).toContain("s-maxage=300");
  });
});

describe.each(reads)("GET %s", (template, route) => {
  it("sends its declared Cache-Control and a strong ETag, the same for the same bytes", async () => {
    const path = SAMPLES[template]!();
    const a = await get(path);
    expect(a.status, a.text.slice(0, 300)).toBe(200);
    expect(a.headers.get("cache-control")).toBe(declared(route, path));
    expect(a.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(a.headers.get("vary")).toBeNull(); // the answer depends on the path and query only (readRoutes.ts)
    const b = await get(path);
    expect(b.text).toBe(a.text);
    expect(b.headers.get("etag")).toBe(a.headers.get("etag"));
  });

  it("answers a matching If-None-Match (exact, weak, in a list, *) with 304, no body, the same validator and policy; HEAD too", async () => {
    const path = SAMPLES[template]!();
    const full = await get(path);
    const etag = full.headers.get("etag")!;
    for (const condition of [etag, `W/${etag}`, `"stale", ${etag}`, `"stale",W/${etag}`, "*"]) {
      for (const method of ["GET", "HEAD"]) {
        const res = await get(path, { "if-none-match": condition }, method);
        expect(res.status, `${method} If-None-Match: ${condition}`).toBe(304);
        expect(res.text).toBe("");
        expect(res.headers.get("etag")).toBe(etag);
        expect(res.headers.get("cache-control")).toBe(full.headers.get("cache-control"));
        expect(res.headers.get("access-control-allow-origin")).toBe("*");
        expect(res.headers.get("content-type")).toBeNull();
      }
    }
    expect(documentedResponse("get", openApiPath(template), 304), "the 304 in /api/openapi.json").not.toBeNull();
    const other = await get(path, { "if-none-match": '"stale", W/"older"' });
    expect(other.status).toBe(200);
    expect(other.text).toBe(full.text);
    const head = await get(path, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("etag")).toBe(etag);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(full.text)));
  });
});

describe("validators follow the data", () => {
  it("a changed answer gets another ETag, and the old one no longer answers 304", async () => {
    const before = await get("/api/services/dune-mpp");
    const etag = before.headers.get("etag")!;
    await sql.query("UPDATE entities SET label = 'Dune Analytics' WHERE id = 'dune-mpp'");
    try {
      const after = await get("/api/services/dune-mpp", { "if-none-match": etag });
      expect(after.status).toBe(200);
      expect(JSON.parse(after.text).label).toBe("Dune Analytics");
      expect(after.headers.get("etag")).not.toBe(etag);
      expect((await get("/api/services/dune-mpp", { "if-none-match": after.headers.get("etag")! })).status).toBe(304);
    } finally {
      await sql.query("UPDATE entities SET label = 'Dune' WHERE id = 'dune-mpp'");
    }
  });

  it("a cursor page past the head is cached longer than the head page", async () => {
    const head = await get("/api/agents/v3-agent/events?limit=1");
    expect(head.headers.get("cache-control")).toBe(LIVE);
    const cursor = JSON.parse(head.text).nextCursor as string;
    expect(cursor).toBeTruthy();
    const next = await get(`/api/agents/v3-agent/events?limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(next.status).toBe(200);
    expect(next.headers.get("cache-control")).toBe(SETTLED);
    expect(next.headers.get("etag")).toMatch(/^"/);
  });

  it("errors are never cached nor validated, whatever the condition", async () => {
    for (const path of ["/api/services/nope", "/api/events/0", "/api/search?q=x"]) {
      const res = await get(path, { "if-none-match": "*" });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("etag")).toBeNull();
    }
  });

  it("the operations, GraphQL and feed endpoints stay no-store without a validator", async () => {
    const health = await get("/healthz", { "if-none-match": "*" });
    expect(health.status).toBe(200);
    expect(health.headers.get("cache-control")).toBe("no-store");
    expect(health.headers.get("etag")).toBeNull();
    const graphql = await get(`/graphql?query=${encodeURIComponent("{ services { id } }")}`, { accept: "application/json", "if-none-match": "*" });
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get("cache-control")).toBe("no-store"); // may depend on the caller's credentials
    expect(graphql.headers.get("etag")).toBeNull();
    const feed = await get("/api/feed", { "if-none-match": "*" }); // disabled in this app: an error
    expect(feed.headers.get("cache-control")).toBe("no-store");
    expect(feed.headers.get("etag")).toBeNull();
  });
});

describe("the no-store surfaces (wallet, webhooks, ops) through the real router", () => {
  it("answer 200 in full with no ETag, even to If-None-Match: *", async () => {
    const route = (path: string, surface: Surface): JsonRoute => ({
      method: "GET",
      path,
      auth: "none",
      surface,
      handle: async () => ({ body: { path } }),
      openapi: { omit: "test route" },
    });
    const routes = [
      route("/api/wallet/x", WALLET_SURFACE),
      route("/api/webhooks/x", WEBHOOK_SURFACE),
      route("/ops/x", OPS_SURFACE),
      route("/api/read/x", READ_SURFACE),
    ];
    const handle = createRouter({
      mounted: routes.map((r) => ({ path: r.path, route: r, deps: {} })),
      db: t.pool,
      log: silentLog,
      now: () => new Date(),
      origins: new Set(),
      fallback: async (_req, res) => void res.writeHead(404).end(),
    });
    const server = createServer((req, res) => void handle(req, res));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const path of ["/api/wallet/x", "/api/webhooks/x", "/ops/x"]) {
      const res = await fetch(base + path, { headers: { "if-none-match": "*" } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("etag")).toBeNull();
      expect(await res.json()).toEqual({ path });
    }
    // the read surface's default (a read route that declares nothing): revalidate every time, with a validator
    const read = await fetch(`${base}/api/read/x`, { headers: { "if-none-match": "*" } });
    expect(read.status).toBe(304);
    expect(read.headers.get("cache-control")).toBe("no-cache");
  });
});
