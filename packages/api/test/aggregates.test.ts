import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardJson, entityDetailJson, entityListItemJson } from "../src/rest/serializers.ts";
import { createServices } from "../src/services/createServices.ts";
import { bruteDashboard, bruteEntityDetail, bruteEntityList } from "./support/bruteForce.ts";
import { getJson } from "./support/http.ts";
import { seedDevnetLedger, type SeededLedger } from "./support/seedDevnetLedger.ts";
import { startTestApp } from "./support/startTestApp.ts";

// Every aggregate the API serves comes from the rollup tables; here each one is recomputed by brute force from the
// agent_events rows (see support/bruteForce.ts) at many injected `now`s, so window edges cut through the data.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let seeded: SeededLedger;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  seeded = await seedDevnetLedger(db.url);
  pool = createPgPool(db.url, { max: 4 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await seeded?.stop();
  await db?.drop();
});

/** `now`s relative to the seed's clock: the present, edges of the 24 h / 7 d / 30 d windows, the past and the future. */
function nows(): [string, Date][] {
  const n = seeded.now.getTime();
  return [
    ["now", seeded.now],
    ["now - 12h (inside the burst)", new Date(n - 12 * HOUR + 20_000)],
    ["now - 1d", new Date(n - DAY)],
    ["now - 7d + 90min", new Date(n - 7 * DAY + 90 * 60_000)],
    ["now - 20d", new Date(n - 20 * DAY)],
    ["now - 35d + 30s", new Date(n - 35 * DAY + 30_000)],
    ["before any data", new Date(n - 60 * DAY)],
    ["now + 2d", new Date(n + 2 * DAY)],
    ["now + 45d", new Date(n + 45 * DAY)],
  ];
}

const services = (now: Date) => createServices({ db: pool, now: () => now, dashboardCacheTtlMs: 0 });

describe("dashboard equals a brute-force computation over agent_events", () => {
  for (const w of ["24h", "7d", "30d", "all"]) {
    it(`window ${w} at every injected now`, async () => {
      let nonEmpty = 0;
      for (const [name, now] of nows()) {
        const api = dashboardJson(await services(now).getDashboard(w));
        const brute = await bruteDashboard(pool, now, w);
        const { recentEvents, ...aggregates } = api;
        const { recentEventIds, ...expected } = brute;
        expect(aggregates, `${w} at ${name}`).toEqual(expected);
        expect(
          recentEvents.map((e) => e.id),
          name,
        ).toEqual(recentEventIds);
        if (api.txCount > 0) nonEmpty++;
      }
      expect(nonEmpty).toBeGreaterThanOrEqual(3);
    });
  }

  it("the seeded data exercises every part of the dashboard", async () => {
    const all = dashboardJson(await services(seeded.now).getDashboard("all"));
    expect(all.topServices).toHaveLength(4);
    expect(all.topAgents).toHaveLength(3);
    expect(all.topProviders).toHaveLength(5);
    expect(all.providersDetected).toBe(6);
    expect(all.agentsActive).toBe(3);
  });
});

describe("service and agent lists equal a brute-force computation", () => {
  for (const kind of ["service", "agent"] as const) {
    it(`${kind}s at every injected now`, async () => {
      for (const [name, now] of nows()) {
        const api = (await services(now).listEntities(kind)).map(entityListItemJson);
        expect(api, `${kind}s at ${name}`).toEqual(await bruteEntityList(pool, now, kind));
      }
    });
  }
});

describe("details equal a brute-force computation", () => {
  it("totals, the 30-day trend and gateway providers of every entity", async () => {
    const ids = (await pool.query<{ id: string }>("SELECT id FROM entities ORDER BY id")).rows.map((r) => r.id);
    for (const [name, now] of nows().slice(0, 5)) {
      for (const id of ids) {
        const detail = await services(now).getEntityDetail(id.endsWith("-mpp") ? "service" : "agent", id);
        const api = entityDetailJson(detail!);
        const brute = await bruteEntityDetail(pool, now, id);
        expect(api.totals, `${id} totals at ${name}`).toEqual(brute.totals);
        expect(api.trend, `${id} trend at ${name}`).toEqual(brute.trend);
        if (id === "tempo-gateway-mpp") {
          expect(api.providers, `providers at ${name}`).toEqual(brute.providers);
        } else expect(api.providers).toBeUndefined();
      }
    }
  });

  it("the detail's one-statement summary equals the batch loaders GraphQL uses, at every now; unknown ids are null", async () => {
    const ids = (await pool.query<{ id: string }>("SELECT id FROM entities ORDER BY id")).rows.map((r) => r.id);
    for (const [name, now] of nows()) {
      const s = services(now);
      const [heads, wallets, totals, trends] = await Promise.all([s.loadEntities(ids), s.loadWallets(ids), s.loadEntityTotals(ids), s.loadEntityTrend(ids)]);
      for (const [i, id] of ids.entries()) {
        const detail = await s.getEntityDetail(id.endsWith("-mpp") ? "service" : "agent", id);
        const { recentEvents: _events, providers: _providers, tokens: _tokens, ...summary } = detail!;
        expect(summary, `${id} at ${name}`).toEqual({ ...heads[i], wallets: wallets[i], totals: totals[i], trend: trends[i] });
      }
    }
    expect(await services(seeded.now).getEntityDetail("service", "no-such-mpp")).toBeNull();
    expect(await services(seeded.now).getEntityDetail("agent", "tempo-gateway-mpp")).toBeNull();
    expect(await services(seeded.now).getEntityDetail("service", "demo-agent-alpha")).toBeNull();
  });

  it("provider labels: entity or address label for addresses, fingerprint label for fingerprints, else null", async () => {
    const detail = await services(seeded.now).getEntityDetail("service", "tempo-gateway-mpp");
    const labels = Object.fromEntries(detail!.providers!.map((p) => [p.key, p.label]));
    const expected: Record<string, string | null> = {};
    for (const r of seeded.keys.routedServices) {
      expected[r.provider.address] = r.provider.label;
      expected[r.fingerprint.toLowerCase()] = r.fingerprintLabel ?? null;
    }
    expect(labels).toEqual(expected);
  });
});

describe("per-token breakdowns", () => {
  type Tok = { tokenAddress: string; symbol: string | null; txCount: number; amountSumWei: string };
  const sumOf = (list: Tok[]) => ({ n: list.reduce((a, t) => a + t.txCount, 0), s: list.reduce((a, t) => a + BigInt(t.amountSumWei), 0n).toString() });

  it("add up to the figures beside them in lists, details, tops and providers, with two allowlisted tokens", async () => {
    const tokensSeen = new Set<string>();
    for (const [name, now] of nows().slice(0, 6)) {
      const s = services(now);
      for (const kind of ["service", "agent"] as const) {
        for (const item of (await s.listEntities(kind)).map(entityListItemJson)) {
          expect(sumOf(item.byToken24h), `${item.id} 24h at ${name}`).toEqual({ n: item.txCount24h, s: item.amountSumWei24h });
          expect(sumOf(item.byToken7d), `${item.id} 7d at ${name}`).toEqual({ n: item.txCount7d, s: item.amountSumWei7d });
          const d = entityDetailJson((await s.getEntityDetail(kind, item.id))!);
          expect(sumOf(d.totals.byToken), `${item.id} totals`).toEqual({ n: d.totals.txCount, s: d.totals.amountSumWei });
          expect(sumOf(d.totals.feesByToken), `${item.id} fees`).toEqual({ n: d.totals.feeCount, s: d.totals.feeSumWei });
          for (const p of d.trend) expect(sumOf(p.byToken), `${item.id} ${p.day}`).toEqual({ n: p.txCount, s: p.amountSumWei });
          for (const p of d.providers ?? []) expect(sumOf(p.byToken), p.key).toEqual({ n: p.txCount, s: p.amountSumWei });
          d.totals.byToken.forEach((t) => tokensSeen.add(t.symbol ?? t.tokenAddress));
        }
      }
      for (const w of ["24h", "7d", "30d", "all"]) {
        const dash = dashboardJson(await s.getDashboard(w));
        for (const x of [...dash.topServices, ...dash.topAgents, ...dash.topProviders])
          expect(sumOf(x.byToken), `${w} at ${name}`).toEqual({ n: x.txCount, s: x.amountSumWei });
      }
    }
    expect([...tokensSeen].sort()).toEqual(["AlphaUSD", "pathUSD"]);
  });

  it("series buckets (ledger, entity, provider) add up per bucket and per token equal an independent SQL sum", async () => {
    const provider = seeded.keys.routedServices[0]!.provider.address;
    const scopes: [string, { entityId?: string; providerKey?: string }, string][] = [
      [
        "ledger",
        {},
        "(SELECT DISTINCT tx_hash, log_index, ts, amount_wei, token_address FROM agent_events WHERE methodology_version = 'v0.1' AND kind <> 'fee_paid') r",
      ],
      [
        "entity",
        { entityId: "demo-agent-gamma" },
        "agent_events r WHERE methodology_version = 'v0.1' AND kind <> 'fee_paid' AND agent_id = 'demo-agent-gamma'",
      ],
      [
        "provider",
        { providerKey: provider },
        `(SELECT DISTINCT tx_hash, log_index, ts, amount_wei, token_address FROM agent_events
        WHERE methodology_version = 'v0.1' AND kind <> 'fee_paid' AND routed_to_address = '${provider}') r`,
      ],
    ];
    let multiToken = 0;
    for (const [name, scope, rows] of scopes) {
      for (const [w, bucket] of [
        ["30d", "day"],
        ["all", "day"],
        ["7d", "hour"],
      ] as const) {
        const series = await services(seeded.now).getActivitySeries(w, bucket, scope);
        const perToken = new Map<string, { n: number; s: bigint }>();
        for (const p of series.points) {
          expect(
            { n: p.byToken.reduce((a, t) => a + t.txCount, 0), s: p.byToken.reduce((a, t) => a + t.amountSumWei, 0n) },
            `${name} ${w} ${p.t.toISOString()}`,
          ).toEqual({ n: p.txCount, s: p.amountSumWei });
          for (const t of p.byToken) {
            const x = perToken.get(t.tokenAddress) ?? { n: 0, s: 0n };
            perToken.set(t.tokenAddress, { n: x.n + t.txCount, s: x.s + t.amountSumWei });
          }
        }
        const { rows: truth } = await pool.query<{ token_address: string; n: number; s: string }>(
          `SELECT token_address, count(*)::int AS n, sum(amount_wei)::text AS s FROM ${rows}
           ${rows.includes(" WHERE ") && !rows.endsWith(") r") ? "AND" : "WHERE"} ts >= $1 AND ts < $2 GROUP BY 1 ORDER BY 1`,
          [series.from, series.to],
        );
        expect(
          [...perToken]
            .map(([token_address, x]) => ({ token_address, n: x.n, s: x.s.toString() }))
            .sort((a, b) => (a.token_address < b.token_address ? -1 : 1)),
          `${name} ${w}`,
        ).toEqual(truth);
        if (truth.length > 1) multiToken++;
      }
    }
    expect(multiToken).toBeGreaterThanOrEqual(2); // the ledger and gamma's series see both tokens
  });
});

describe("the HTTP layer serves the same numbers", () => {
  it("REST dashboard and lists with an injected clock equal the brute force", async () => {
    const now = new Date(seeded.now.getTime() - 7 * DAY + 90 * 60_000);
    const app = await startTestApp(db.url, { now: () => now });
    try {
      for (const w of ["24h", "7d", "30d", "all"]) {
        const { body } = await getJson(app.url, `/api/dashboard?w=${w}`);
        const { recentEventIds: _ids, ...expected } = await bruteDashboard(pool, now, w);
        const { recentEvents: _events, ...aggregates } = body;
        expect(aggregates).toEqual(expected);
      }
      expect((await getJson(app.url, "/api/agents")).body).toEqual(await bruteEntityList(pool, now, "agent"));
    } finally {
      await app.close();
    }
  });
});
