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
        expect(recentEvents.map((e) => e.id), name).toEqual(recentEventIds);
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
        const { recentEvents: _events, providers: _providers, ...summary } = detail!;
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
