import type pg from "pg";
import { DASHBOARD_QUERY, TOKENS_QUERY } from "@agent-ledger/web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, gql, schemaProblems } from "./support/http.ts";
import type { SeededLedger } from "./support/seedDevnetLedger.ts";
import { startSeededApp, type SeededApp } from "./support/seededApp.ts";
import type { TestApp } from "./support/startTestApp.ts";

// The reads the explorer added (GraphQL activitySeries, provider, Dashboard.previous; REST /api/series,
// /api/providers/:key, /api/dashboard/previous) on a ledger the real indexer built from devnet payments spread over
// 40 days, checked against agent_events itself (the rollups are what they read; the rows are the truth), and the
// HTTP status of explorer pages for known and unknown ids.

let app: SeededApp | undefined;
let db: SeededApp["db"];
let seeded: SeededLedger;
let t: TestApp;
let sql: pg.Client;

beforeAll(async () => {
  app = await startSeededApp({ dashboardCacheTtlMs: 0 });
  ({ db, seeded, t, sql } = app);
}, 180_000);

afterAll(() => app?.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Payments (each counted once, fees excluded) from agent_events in [from, to): the ledger's own definition. */
async function paymentsBetween(from: Date, to: Date, where = "TRUE"): Promise<{ n: number; s: bigint }> {
  const { rows } = await sql.query(
    `SELECT count(*)::int AS n, coalesce(sum(amount_wei), 0)::text AS s FROM (
       SELECT DISTINCT ON (tx_hash, log_index) amount_wei FROM agent_events
       WHERE kind <> 'fee_paid' AND methodology_version = 'v0.1' AND ts >= $1 AND ts < $2 AND ${where}) p`,
    [from, to],
  );
  return { n: rows[0].n, s: BigInt(rows[0].s) };
}

async function data(query: string, variables?: Record<string, unknown>) {
  const res = await gql(t.url, query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

describe("activitySeries", () => {
  it("hourly 7d and daily 30d / all: every bucket zero-filled, sums equal agent_events and the dashboard", async () => {
    for (const [window, bucket, len] of [
      ["24h", "hour", 24],
      ["7d", "hour", 168],
      ["30d", "day", 30],
      ["all", "day", null],
    ] as const) {
      const d = await data(
        `query($w: String!) { dashboard(window: $w) { txCount amountSumWei } activitySeries(window: $w) { window bucket from to points { t txCount amountSumWei } } }`,
        { w: window },
      );
      const s = d.activitySeries;
      expect(s.bucket).toBe(bucket);
      if (len) expect(s.points).toHaveLength(len);
      const step = bucket === "hour" ? HOUR : DAY;
      s.points.forEach((p: { t: string }, i: number) => expect(new Date(p.t).getTime()).toBe(new Date(s.from).getTime() + i * step));
      expect(new Date(s.to).getTime()).toBe(new Date(s.from).getTime() + s.points.length * step);
      const n = s.points.reduce((a: number, p: { txCount: number }) => a + p.txCount, 0);
      const sum = s.points.reduce((a: bigint, p: { amountSumWei: string }) => a + BigInt(p.amountSumWei), 0n);
      expect(n).toBe(d.dashboard.txCount);
      expect(sum.toString()).toBe(d.dashboard.amountSumWei);
      const truth = await paymentsBetween(new Date(s.from), new Date(s.to));
      expect({ n, s: sum }).toEqual(truth);
      if (window === "all") expect(n).toBeGreaterThan(50);
    }
  });

  it("one entity: its sent + received rows per day; one provider: what was routed to it", async () => {
    const {
      rows: [busiest],
    } = await sql.query("SELECT agent_id FROM agent_events WHERE kind <> 'fee_paid' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1");
    const d = await data(`query($id: ID!) { activitySeries(window: "30d", entityId: $id) { from to points { txCount amountSumWei } } }`, {
      id: busiest.agent_id,
    });
    const {
      rows: [e],
    } = await sql.query(
      "SELECT count(*)::int AS n, coalesce(sum(amount_wei),0)::text AS s FROM agent_events WHERE agent_id = $1 AND kind <> 'fee_paid' AND methodology_version = 'v0.1' AND ts >= $2 AND ts < $3",
      [busiest.agent_id, d.activitySeries.from, d.activitySeries.to],
    );
    expect(e.n).toBeGreaterThan(0);
    expect(d.activitySeries.points.reduce((a: number, p: { txCount: number }) => a + p.txCount, 0)).toBe(e.n);
    expect(d.activitySeries.points.reduce((a: bigint, p: { amountSumWei: string }) => a + BigInt(p.amountSumWei), 0n).toString()).toBe(e.s);

    const { providers } = await data(`{ providers(first: 100) { items { key pattern txCount amountSumWei } } }`);
    expect(providers.items.length).toBeGreaterThan(0);
    for (const p of providers.items) {
      const one = await data(
        `query($k: String!) { provider(key: $k) { key pattern address fingerprint label txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } firstSeenAt lastSeenAt } activitySeries(window: "all", providerKey: $k) { points { txCount amountSumWei } } }`,
        { k: p.key.toUpperCase().replace("0X", "0x") },
      );
      expect(one.provider).toMatchObject(p);
      expect(one.activitySeries.points.reduce((a: number, x: { txCount: number }) => a + x.txCount, 0)).toBe(p.txCount);
      expect(one.activitySeries.points.reduce((a: bigint, x: { amountSumWei: string }) => a + BigInt(x.amountSumWei), 0n).toString()).toBe(p.amountSumWei);
      const rest = await getJson(t.url, `/api/providers/${p.key}`);
      expect(rest.status).toBe(200);
      expect(schemaProblems("/api/providers/{key}", 200, rest.body)).toEqual([]);
      expect(rest.body).toEqual(one.provider);
    }
  });

  it("refuses hourly buckets for all, unknown entities, and both scopes at once; REST says the same", async () => {
    const bad = await gql(t.url, `{ activitySeries(window: "all", bucket: hour) { bucket } }`);
    expect(bad.body.errors[0].extensions.code).toBe("invalid_window");
    const unknown = await gql(t.url, `{ activitySeries(entityId: "no-such-agent") { bucket } }`);
    expect(unknown.body.errors[0].extensions.code).toBe("not_found");
    expect((await getJson(t.url, "/api/series?w=all&bucket=hour")).body.error.code).toBe("invalid_window");
    expect((await getJson(t.url, "/api/series?bucket=minute")).status).toBe(400);
    expect((await getJson(t.url, "/api/series?entity=no-such-agent")).status).toBe(404);
    expect((await getJson(t.url, "/api/series?entity=alpha&provider=0x01")).body.error.code).toBe("invalid_query");
    expect((await getJson(t.url, "/api/providers/0xnotakey")).status).toBe(404);
    expect((await gql(t.url, `{ provider(key: "0x0000000000000000000000000000000000000bad") { key } }`)).body.data.provider).toBeNull();
  });

  it("REST /api/series is the GraphQL answer, in the OpenAPI shape", async () => {
    const d = await data(
      `{ activitySeries(window: "7d", bucket: day) { window bucket from to points { t txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } } } }`,
    );
    const rest = await getJson(t.url, "/api/series?w=7d&bucket=day");
    expect(rest.status).toBe(200);
    expect(schemaProblems("/api/series", 200, rest.body)).toEqual([]);
    expect(rest.body).toEqual(d.activitySeries);
    // the 7d window is the 168 hours ending with the current one (resolveWindow): they touch 8 UTC days, or 7 when the
    // current hour is 23:00 UTC
    const hourStart = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const days = Math.floor(hourStart / 86_400_000) - Math.floor((hourStart - 167 * 3_600_000) / 86_400_000) + 1;
    expect(d.activitySeries.points).toHaveLength(days);
  });
});

describe("Dashboard.previous", () => {
  it("is the same-length window before, with the dashboard's definitions, and null for all", async () => {
    for (const window of ["24h", "7d", "30d"]) {
      const d = await data(
        `query($w: String!) { dashboard(window: $w) { previous { from to txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } agentsActive providersDetected } } activitySeries(window: $w) { from to } }`,
        { w: window },
      );
      const p = d.dashboard.previous;
      const len = new Date(p.to).getTime() - new Date(p.from).getTime();
      expect(len).toBe(window === "24h" ? DAY : window === "7d" ? 7 * DAY : 30 * DAY);
      const truth = await paymentsBetween(new Date(p.from), new Date(p.to));
      expect({ n: p.txCount, s: BigInt(p.amountSumWei) }).toEqual(truth);
      // per token, the same definition split by token_address, with the allowlist's description, largest amount first
      const { rows: perToken } = await sql.query(
        `SELECT p.token_address AS "tokenAddress", t.symbol, t.decimals, t.currency, count(*)::int AS "txCount", sum(p.amount_wei)::text AS "amountSumWei"
         FROM (SELECT DISTINCT ON (tx_hash, log_index) token_address, amount_wei FROM agent_events
               WHERE kind <> 'fee_paid' AND methodology_version = 'v0.1' AND ts >= $1 AND ts < $2) p
         LEFT JOIN tokens t ON t.address = p.token_address
         GROUP BY 1, 2, 3, 4 ORDER BY sum(p.amount_wei) DESC, 1`,
        [p.from, p.to],
      );
      expect(p.byToken).toEqual(perToken);
      if (window !== "24h") expect(p.byToken.length).toBeGreaterThan(0); // the seed has payments 8–14 and 31–40 days ago
      const {
        rows: [a],
      } = await sql.query(
        "SELECT count(DISTINCT agent_id)::int AS n FROM agent_events WHERE agent_id NOT LIKE '%-mpp' AND methodology_version = 'v0.1' AND ts >= $1 AND ts < $2",
        [p.from, p.to],
      );
      expect(p.agentsActive).toBe(a.n);
      const rest = await getJson(t.url, `/api/dashboard/previous?w=${window}`);
      expect(schemaProblems("/api/dashboard/previous", 200, rest.body)).toEqual([]);
      expect(rest.body).toEqual({ window, previous: p });
    }
    const prev30 = (await data(`{ dashboard(window: "30d") { previous { txCount } } }`)).dashboard.previous;
    expect(prev30.txCount).toBeGreaterThan(0); // the seed has payments 31–40 days ago
    expect((await data(`{ dashboard(window: "all") { previous { txCount } } }`)).dashboard.previous).toBeNull();
    expect((await getJson(t.url, "/api/dashboard/previous?w=all")).body).toEqual({ window: "all", previous: null });
  });
});

describe("explorer pages", () => {
  it("answer 200 for known ids and 404 for unknown ones (services, agents, events, providers)", async () => {
    const {
      rows: [ev],
    } = await sql.query("SELECT id::text AS id, agent_id FROM agent_events WHERE methodology_version = 'v0.1' ORDER BY id LIMIT 1");
    const { providers } = await data(`{ providers(first: 1) { items { key } } }`);
    const status = async (path: string) => (await fetch(`${t.url}${path}`, { headers: { accept: "text/html" } })).status;
    expect(await status(`/events/${ev.id}`)).toBe(200);
    expect(await status(`/events/999999999`)).toBe(404);
    expect(await status(`/events/abc`)).toBe(404);
    expect(await status(`/agents/${seeded.registry.entities.find((e) => !e.id.endsWith("-mpp"))!.id}`)).toBe(200);
    expect(await status(`/agents/nobody-here`)).toBe(404);
    expect(await status(`/services/tempo-gateway-mpp`)).toBe(200);
    expect(await status(`/services/alpha`)).toBe(404);
    expect(await status(`/providers/${providers.items[0].key}`)).toBe(200);
    expect(await status(`/providers/0x0000000000000000000000000000000000000bad`)).toBe(404);
    expect(await status(`/`)).toBe(200);
    expect(await status(`/definitely/not/a/page`)).toBe(404);
    expect((await getJson(t.url, "/definitely/not/a/page")).body.error.code).toBe("not_found"); // JSON for API clients
  });
  it("carry the answer to their first GraphQL request: the same body a POST /graphql without credentials gets", async () => {
    const block = async (path: string) => {
      const res = await fetch(`${t.url}${path}`, { headers: { accept: "text/html" } });
      expect(res.status).toBe(200);
      const m = /<script type="application\/json" id="first-answer" data-request="([^"]+)">([^<]*)<\/script>/.exec(await res.text());
      expect(m, path).not.toBeNull();
      return { request: m![1], answer: JSON.parse(m![2]!) };
    };
    for (const w of ["24h", "30d"]) {
      const inline = await block(w === "24h" ? "/" : `/?window=${w}`);
      expect(inline.request).toBe(`dashboard:${w}`);
      const posted = await gql(t.url, DASHBOARD_QUERY, { w });
      expect(inline.answer).toEqual(posted.body);
      expect(inline.answer.data.dashboard.window).toBe(w);
    }
    const tokens = await block("/agents");
    expect(tokens).toEqual({ request: "tokens", answer: (await gql(t.url, TOKENS_QUERY)).body });
  });
});
