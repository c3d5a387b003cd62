import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { rpcRequest, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App, type AppDeps } from "../src/buildApp.ts";
import { createChainHead } from "../src/ops/createChainHead.ts";
import { isValidRequestId } from "../src/ops/requestId.ts";
import { routeLabel } from "../src/ops/routeLabel.ts";
import { getJson, gql } from "./support/http.ts";
import { silentLog } from "./support/startTestApp.ts";

// Operability: /readyz against a real PostgreSQL, a real Redis, a loopback JSON-RPC node we control (and a real
// devnet), /metrics (prom-client text) and request ids + one JSON log line per request.

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const STREAM = "tempo-31337";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
const cleanups: (() => Promise<unknown>)[] = [];

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** A loopback JSON-RPC node that answers eth_blockNumber with `head` (or never answers, when `hang`). */
async function startFakeRpc(initialHead: number) {
  const state = { head: initialHead, hang: false, calls: 0 };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      state.calls++;
      if (state.hang) return; // never answers
      const call = JSON.parse(body) as { id: number; method: string };
      const answer =
        call.method === "eth_blockNumber"
          ? { jsonrpc: "2.0", id: call.id, result: `0x${state.head.toString(16)}` }
          : { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "method not found" } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return { url, state };
}

async function setCheckpoint(lastBlock: number, ageSeconds = 0): Promise<void> {
  await sql.query(
    `INSERT INTO indexer_checkpoints (id, chain_id, start_block, last_block, updated_at) VALUES ($1, 31337, 0, $2, now() - make_interval(secs => $3))
     ON CONFLICT (id) DO UPDATE SET last_block = EXCLUDED.last_block, updated_at = EXCLUDED.updated_at`,
    [STREAM, lastBlock, ageSeconds],
  );
}

/** The real app over `databaseUrl` (default: this file's database) on a free port. */
async function startApp(deps: Partial<Omit<AppDeps, "pool">> & { databaseUrl?: string } = {}): Promise<{ app: App; url: string }> {
  const pool = createPgPool(deps.databaseUrl ?? db.url, { max: 3 });
  const app = buildApp({ pool, log: silentLog, ...deps });
  const url = await app.start(0);
  cleanups.push(async () => {
    await app.stop();
    await pool.end();
  });
  return { app, url };
}

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await sql?.end();
  await db?.drop();
});

describe("/readyz", () => {
  it("is 200 with every check when the database, Redis and a close-enough indexer are there", async () => {
    await setCheckpoint(1_000, 5);
    const rpc = await startFakeRpc(1_040);
    const { url } = await startApp({ readiness: { redisUrl: REDIS_URL, rpcUrl: rpc.url, maxLagBlocks: 100, maxCheckpointAgeSeconds: 60, headCacheMs: 0 } });
    const res = await getJson(url, "/readyz");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toMatchObject({
      ok: true,
      database: "ok",
      indexer: { stream: STREAM, last_block: 1_000, updated_at: expect.any(String) },
      checks: {
        database: { ok: true, ms: expect.any(Number) },
        redis: { ok: true, ms: expect.any(Number) },
        indexer: { ok: true, stream: STREAM, lastBlock: 1_000, head: 1_040, lagBlocks: 40, maxLagBlocks: 100, maxAgeSeconds: 60, problems: [] },
      },
    });
    expect(res.body.checks.indexer.ageSeconds).toBeGreaterThanOrEqual(5);
    expect(res.body.error).toBeUndefined();
    expect((await fetch(`${url}/readyz`, { method: "HEAD" })).status).toBe(200);
  });

  it("is 503 naming Redis when REDIS_URL points to a closed port, within the timeout", async () => {
    await setCheckpoint(1_000);
    const rpc = await startFakeRpc(1_000);
    const { url } = await startApp({ readiness: { redisUrl: `redis://127.0.0.1:${await closedPort()}`, rpcUrl: rpc.url, timeoutMs: 800 } });
    for (let i = 0; i < 2; i++) {
      const started = performance.now();
      const res = await getJson(url, "/readyz");
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(res.status).toBe(503);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body).toMatchObject({
        ok: false,
        database: "ok",
        checks: { database: { ok: true }, redis: { ok: false, error: expect.stringMatching(/ECONNREFUSED|no PONG/) }, indexer: { ok: true } },
        error: { code: "not_ready", message: expect.stringMatching(/^redis: /) },
      });
    }
  });

  it("is 503 when the indexer trails the chain head by more than the bound, and 200 again when it catches up", async () => {
    await setCheckpoint(1_000);
    const rpc = await startFakeRpc(1_101);
    const { url } = await startApp({ readiness: { redisUrl: REDIS_URL, rpcUrl: rpc.url, maxLagBlocks: 100, headCacheMs: 0 } });
    let res = await getJson(url, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body.checks.indexer).toMatchObject({
      ok: false,
      head: 1_101,
      lastBlock: 1_000,
      lagBlocks: 101,
      problems: ["indexer 101 blocks behind the head (max 100)"],
    });
    expect(res.body.checks.redis.ok).toBe(true);
    expect(res.body.error).toEqual({ code: "not_ready", message: "indexer: indexer 101 blocks behind the head (max 100)" });
    rpc.state.head = 1_100;
    res = await getJson(url, "/readyz");
    expect(res.status).toBe(200);
    expect(res.body.checks.indexer.lagBlocks).toBe(100);
  });

  it("is 503 when the database is unreachable (and says so in the legacy fields too)", async () => {
    const rpc = await startFakeRpc(1_000);
    const { url } = await startApp({
      databaseUrl: `postgresql://postgres@127.0.0.1:${await closedPort()}/nope`,
      readiness: { redisUrl: REDIS_URL, rpcUrl: rpc.url },
    });
    const res = await getJson(url, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      ok: false,
      database: "unreachable",
      indexer: null,
      checks: {
        database: { ok: false, error: expect.stringMatching(/ECONNREFUSED/) },
        redis: { ok: true },
        indexer: { ok: false, problems: ["database unreachable"] },
      },
      error: { code: "not_ready", message: expect.stringMatching(/^database: /) },
    });
  });

  it("is 503 when the RPC is configured but does not answer in time; the head is then unknown", async () => {
    await setCheckpoint(1_000);
    const rpc = await startFakeRpc(1_000);
    rpc.state.hang = true;
    const { url } = await startApp({ readiness: { rpcUrl: rpc.url, timeoutMs: 300, headCacheMs: 0 } });
    const started = performance.now();
    const res = await getJson(url, "/readyz");
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(res.status).toBe(503);
    expect(res.body.checks.indexer).toMatchObject({ ok: false, head: null, lagBlocks: null, headError: "eth_blockNumber: no answer within 300 ms" });
    expect(res.body.checks.redis).toEqual({ ok: true, skipped: "REDIS_URL not configured" });
  });

  it("uses the checkpoint age only while the indexer is not known to be at the head", async () => {
    await setCheckpoint(1_000, 3_600);
    const rpc = await startFakeRpc(1_000);
    const { url } = await startApp({ readiness: { rpcUrl: rpc.url, maxCheckpointAgeSeconds: 600, headCacheMs: 0 } });
    // At the head: an idle chain writes no checkpoint, so an old one is fine.
    expect((await getJson(url, "/readyz")).status).toBe(200);
    // Behind (within the lag bound) and not moving for an hour: stalled.
    rpc.state.head = 1_005;
    const res = await getJson(url, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body.checks.indexer.problems).toEqual([expect.stringMatching(/^checkpoint unchanged for 36\d\d(\.\d)? s \(max 600 s\) while behind the head$/)]);
  });

  it("without TEMPO_RPC_URL skips the lag (reported), applies the age bound, and fails without any checkpoint", async () => {
    await setCheckpoint(1_000, 10);
    const { url } = await startApp({ readiness: { maxCheckpointAgeSeconds: 5 } });
    let res = await getJson(url, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body.checks.indexer).toMatchObject({ head: null, lagBlocks: null, maxLagBlocks: null, headError: "TEMPO_RPC_URL not configured" });
    expect(res.body.checks.indexer.problems[0]).toMatch(/while the head is unknown$/);
    await setCheckpoint(1_000, 0);
    res = await getJson(url, "/readyz");
    expect(res.status).toBe(200);
    await sql.query("DELETE FROM indexer_checkpoints");
    res = await getJson(url, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ indexer: null, checks: { indexer: { problems: ["no indexer checkpoint yet"] } } });
  });

  it("with no readiness options checks the database only (library default)", async () => {
    const { url } = await startApp();
    const res = await getJson(url, "/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, database: "ok", indexer: null, checks: { redis: { skipped: "REDIS_URL not configured" } } });
    expect((await getJson(url, "/readyz", { method: "POST" })).status).toBe(405);
  });

  describe("against a real devnet", () => {
    let anvil: AnvilInstance;
    beforeAll(async () => {
      anvil = await startAnvil();
    });
    afterAll(async () => {
      await anvil?.stop();
    });

    it("measures the lag from the node's eth_blockNumber", async () => {
      await rpcRequest(anvil.url, [{ method: "anvil_mine", params: ["0x5"] }]);
      const head = Number(BigInt((await rpcRequest(anvil.url, [{ method: "eth_blockNumber" }]))[0]!.result as string));
      expect(head).toBeGreaterThanOrEqual(5);
      await setCheckpoint(head - 2);
      const { url } = await startApp({ readiness: { redisUrl: REDIS_URL, rpcUrl: anvil.url, maxLagBlocks: 10, headCacheMs: 0 } });
      let res = await getJson(url, "/readyz");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.checks.indexer).toMatchObject({ head, lagBlocks: 2 });
      await rpcRequest(anvil.url, [{ method: "anvil_mine", params: ["0x14"] }]);
      res = await getJson(url, "/readyz");
      expect(res.status).toBe(503);
      expect(res.body.checks.indexer).toMatchObject({ head: head + 20, lagBlocks: 22 });
    });
  });
});

describe("chain head cache", () => {
  it("asks the node at most once per cache period, and once for concurrent callers", async () => {
    const rpc = await startFakeRpc(7);
    let now = 0;
    const head = createChainHead({ rpcUrl: rpc.url, cacheMs: 1_000, clock: () => now });
    expect(await Promise.all([head(), head(), head()])).toEqual([
      { ok: true, block: 7 },
      { ok: true, block: 7 },
      { ok: true, block: 7 },
    ]);
    expect(rpc.state.calls).toBe(1);
    rpc.state.head = 8;
    now = 999;
    expect(await head()).toEqual({ ok: true, block: 7 });
    now = 2_000;
    expect(await head()).toEqual({ ok: true, block: 8 });
    expect(rpc.state.calls).toBe(2);
  });
});

/** Parses Prometheus text into `name{labels}` → value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const i = line.lastIndexOf(" ");
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

describe("/metrics", () => {
  it("counts requests by templated route, method and status, with latency histograms, feed and lag gauges, process metrics", async () => {
    await setCheckpoint(2_000);
    const rpc = await startFakeRpc(2_030);
    let subscribers = 3;
    const { url } = await startApp({ readiness: { rpcUrl: rpc.url, headCacheMs: 0 }, feedSubscriberCount: () => subscribers });
    const scrape = async () => {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      return parseMetrics(await res.text());
    };
    const before = await scrape();
    const key = (route: string, status: number, method = "GET") => `agent_ledger_http_requests_total{method="${method}",route="${route}",status="${status}"}`;
    expect(before.get(key("/api/services/:id", 404)) ?? 0).toBe(0);

    expect((await getJson(url, "/api/services/no-such-mpp")).status).toBe(404);
    expect((await getJson(url, "/api/services/other-unknown-mpp?x=1")).status).toBe(404);
    expect((await getJson(url, "/api/events/abc")).status).toBe(400);
    expect((await getJson(url, "/api/services")).status).toBe(200);
    expect((await gql(url, "{ services { id } }")).status).toBe(200);
    expect((await getJson(url, "/wp-admin/setup.php")).status).toBe(404);
    expect((await getJson(url, "/api/nope/deeper")).status).toBe(404);
    expect((await getJson(url, "/healthz", { method: "DELETE" })).status).toBe(405);

    const after = await scrape();
    expect(after.get(key("/api/services/:id", 404))).toBe(2);
    expect(after.get(key("/api/events/:id", 400))).toBe(1);
    expect(after.get(key("/api/services", 200))).toBe(1);
    expect(after.get(key("/graphql", 200, "POST"))).toBe(1);
    expect(after.get(key("unmatched", 404))).toBe(2);
    expect(after.get(key("/healthz", 405, "DELETE"))).toBe(1);
    expect(after.get(key("/metrics", 200))).toBe(1); // the first scrape
    // Never a raw URL as a label.
    const labels = [...after.keys()].filter((k) => k.startsWith("http_request"));
    expect(labels.filter((k) => /no-such|other-unknown|wp-admin|abc|x=1/.test(k))).toEqual([]);
    expect(after.get('agent_ledger_http_request_duration_seconds_count{method="GET",route="/api/services/:id"}')).toBe(2);
    expect(after.get('agent_ledger_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/graphql"}')).toBe(1);
    expect(after.get("agent_ledger_feed_subscribers")).toBe(3);
    expect(after.get("agent_ledger_api_indexer_lag_blocks")).toBe(30);
    expect(after.get("agent_ledger_api_indexer_checkpoint_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(after.has("agent_ledger_api_process_cpu_user_seconds_total")).toBe(true);
    expect(after.has("agent_ledger_api_nodejs_eventloop_lag_seconds")).toBe(true);

    subscribers = 0;
    rpc.state.head = 2_500;
    const later = await scrape();
    expect(later.get("agent_ledger_feed_subscribers")).toBe(0);
    expect(later.get("agent_ledger_api_indexer_lag_blocks")).toBe(500);
    expect(later.get(key("/metrics", 200))).toBe(2);
  });

  it("reports agent_ledger_feed_subscribers 0 until the feed provides a count, and the lag as NaN without an RPC", async () => {
    const { url } = await startApp();
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(parseMetrics(text).get("agent_ledger_feed_subscribers")).toBe(0);
    expect(text).toMatch(/^agent_ledger_api_indexer_lag_blocks nan$/im); // prom-client writes "Nan"; Prometheus parses it case-insensitively
  });
});

describe("request ids and request logs", () => {
  it("echoes a valid incoming x-request-id, replaces an invalid one, generates one otherwise; logs one line per request without query strings", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split("\n")) if (l) lines.push(JSON.parse(l));
        cb();
      },
    });
    const { url } = await startApp({ log: pino({ level: "info" }, sink) });

    let res = await fetch(`${url}/api/services`, { headers: { "x-request-id": "edge-7f3a:1.2_x" } });
    expect(res.headers.get("x-request-id")).toBe("edge-7f3a:1.2_x");
    await res.text();
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const bad of ["a".repeat(129), "has space", "semi;colon", 'quote"d']) {
      res = await fetch(`${url}/healthz`, { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id")).toMatch(uuid);
      await res.text();
    }
    res = await fetch(`${url}/api/search?q=secret-token-123`);
    const generated = res.headers.get("x-request-id");
    expect(generated).toMatch(uuid);
    await res.text();
    const graphql = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "gql-1" },
      body: JSON.stringify({ query: "{ agents { id } }" }),
    });
    expect(graphql.headers.get("x-request-id")).toBe("gql-1");
    await graphql.text();
    const notFound = await fetch(`${url}/nope?token=abc`, { headers: { "x-request-id": "nf-1" } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("x-request-id")).toBe("nf-1");
    await notFound.text();

    // pino writes synchronously to the sink; the line is written when the response finishes.
    await new Promise((r) => setTimeout(r, 50));
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests).toHaveLength(8);
    expect(requests[0]).toMatchObject({
      level: 30,
      reqId: "edge-7f3a:1.2_x",
      method: "GET",
      route: "/api/services",
      path: "/api/services",
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(requests.find((l) => l.reqId === generated)).toMatchObject({ route: "/api/search", path: "/api/search", status: 200 });
    expect(requests.find((l) => l.reqId === "gql-1")).toMatchObject({ method: "POST", route: "/graphql", status: 200 });
    expect(requests.find((l) => l.reqId === "nf-1")).toMatchObject({ route: "unmatched", path: "/nope", status: 404 });
    const all = JSON.stringify(lines);
    expect(all).not.toContain("secret-token-123");
    expect(all).not.toContain("token=abc");
    expect(all).not.toContain("agents { id }"); // no bodies
  });
});

describe("units", () => {
  it("route labels are templates from a closed set", () => {
    expect(routeLabel("/api/services/weather-api-mpp")).toBe("/api/services/:id");
    expect(routeLabel("/api/services/weather-api-mpp/events/")).toBe("/api/services/:id/events");
    expect(routeLabel("/api/dashboard")).toBe("/api/dashboard");
    expect(routeLabel("/graphql")).toBe("/graphql");
    expect(routeLabel("/api/feed")).toBe("/api/feed");
    expect(routeLabel("/graphql/stream")).toBe("/graphql/stream");
    expect(routeLabel("/mcp")).toBe("/mcp");
    expect(routeLabel("/api/wallet/payments")).toBe("/api/wallet/payments");
    expect(routeLabel("/metrics/")).toBe("/metrics");
    expect(routeLabel("/api/services/a/b/c")).toBe("unmatched");
    expect(routeLabel("/api/webhooks/whs_abc123/deliveries/0b5f0c2e-8a4e-4c1e-9f8e-2f0d3b9c1a7e/redeliver")).toBe(
      "/api/webhooks/:id/deliveries/:deliveryId/redeliver",
    );
    expect(routeLabel("/api/webhooks/whs_abc123/pause")).toBe("/api/webhooks/:id/pause");
    expect(routeLabel("/api/webhooks/whs_abc123")).toBe("/api/webhooks/:id");
    expect(routeLabel("/api/webhooks/whs_abc123/other")).toBe("unmatched");
    expect(routeLabel("/api/wallet/device/poll")).toBe("/api/wallet/device/poll");
    expect(routeLabel("/approve")).toBe("/approve");
    expect(routeLabel("/")).toBe("unmatched");
  });

  it("request ids: 1–128 visible characters from a safe set", () => {
    expect(isValidRequestId("0b5f0c2e-8a4e-4c1e-9f8e-2f0d3b9c1a7e")).toBe(true);
    expect(isValidRequestId("Root=1-67891233-abcdef012345678912345678")).toBe(true);
    expect(isValidRequestId("")).toBe(false);
    expect(isValidRequestId("x".repeat(128))).toBe(true);
    expect(isValidRequestId("x".repeat(129))).toBe(false);
    expect(isValidRequestId("a\nb")).toBe(false);
    expect(isValidRequestId("é")).toBe(false);
  });
});
