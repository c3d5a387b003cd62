import { createPgPool, migrateDeploy } from "@agent-ledger/db";
import { type ReplicaPair, startReplicaPair } from "@agent-ledger/db/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_ROUTES } from "../src/rest/readRoutes.ts";
import { until } from "./support/feedLedger.ts";
import { readSamples } from "./support/readSamples.ts";
import { seedV03Ledger } from "./support/seedV03Ledger.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// Issue 27's "done": with read replicas set, the explorer and every public read work from a replica. A v0.3 ledger seeded
// on a real primary before its streaming replica is made; one app routes its reads to the replica, another reads the
// primary only, on the same fixed clock. Every read route's sample, the explorer's pages and a GraphQL read answer the
// same bytes from both, and the routed app's primary serves none of those reads.

const NOW_S = 1_790_000_000;
let pair: ReplicaPair;
let replicaPool: pg.Pool;
let routed: TestApp;
let direct: TestApp;
let eventId = 0;

beforeAll(async () => {
  pair = await startReplicaPair({
    prepare: async (url) => {
      await migrateDeploy(url, { quiet: true });
      await seedV03Ledger(url, NOW_S);
    },
  });
  replicaPool = createPgPool(pair.replicaUrl, { max: 5, applicationName: "agent-ledger-api-read" });
  replicaPool.on("error", () => undefined);
  eventId = Number((await replicaPool.query("SELECT min(id)::int AS id FROM agent_events")).rows[0].id);
  const common = { methodologyVersion: "v0.3", now: () => new Date((NOW_S + 60) * 1000) };
  routed = await startTestApp(pair.primaryUrl, { ...common, readPools: [{ name: "replica1", pool: replicaPool }], readRouting: { checkIntervalMs: 100 } });
  direct = await startTestApp(pair.primaryUrl, common);
  await until(async () => {
    await routed.app.readRouting!.check();
    await fetch(`${routed.url}/api/services`); // the routing moves with the reads it serves
    return routed.app.readRouting!.status().current === "replica1";
  }, "reads routed to the replica");
}, 180_000);

afterAll(async () => {
  await routed?.close();
  await direct?.close();
  await replicaPool?.end();
  await pair?.stop();
});

const primaryReads = () => routed.app.readRouting!.status().sources.find((s) => s.role === "primary")!.reads;
const replicaReads = () => routed.app.readRouting!.status().sources.find((s) => s.name === "replica1")!.reads;

async function both(path: string, init: RequestInit = {}) {
  const [a, b] = await Promise.all([fetch(routed.url + path, init), fetch(direct.url + path, init)]);
  return { routed: { status: a.status, text: await a.text() }, direct: { status: b.status, text: await b.text() } };
}

/** The first GraphQL answer a page carries (packages/web: the `first-answer` block). */
const firstAnswer = (html: string) => /<script type="application\/json" id="first-answer"[^>]*>([^<]*)<\/script>/.exec(html)?.[1] ?? null;

describe("with DATABASE_READ_URLS set, the explorer and every public read work from the replica", () => {
  it("every read route answers what the primary answers, and the primary serves none of it", async () => {
    const samples = readSamples(() => eventId);
    expect(READ_ROUTES.filter((r) => !samples[r.path]).map((r) => r.path)).toEqual([]);
    const [before, onReplica] = [primaryReads(), replicaReads()];
    for (const route of READ_ROUTES) {
      const path = samples[route.path]!();
      const answer = await both(path);
      expect(answer.routed.status, path).toBe(200);
      expect(answer.routed.text, path).toBe(answer.direct.text);
    }
    expect(primaryReads()).toBe(before);
    expect(replicaReads()).toBeGreaterThan(onReplica + READ_ROUTES.length);
  });

  it("the explorer's pages, their first answers and their 404s come from the replica", async () => {
    const before = primaryReads();
    const html = { accept: "text/html" };
    for (const path of ["/", "/services", "/agents", "/services/dune-mpp", "/agents/v3-agent", `/events/${eventId}`]) {
      const answer = await both(path, { headers: html });
      expect(answer.routed.status, path).toBe(200);
      expect(firstAnswer(answer.routed.text) ?? "", path).toBe(firstAnswer(answer.direct.text) ?? "");
    }
    const home = await both("/", { headers: html });
    expect(firstAnswer(home.routed.text)).toContain('"dashboard"');
    for (const path of ["/services/nobody", "/events/999999999"]) expect((await both(path, { headers: html })).routed.status, path).toBe(404);
    expect(primaryReads()).toBe(before);
  });

  it("a GraphQL read without credentials answers from the replica what the primary answers", async () => {
    const before = primaryReads();
    const body = JSON.stringify({ query: '{ services { id label } dashboard(window: "all") { txCount amountSumWei } }' });
    const answer = await both("/graphql", { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(answer.routed.status).toBe(200);
    expect(JSON.parse(answer.routed.text).errors, answer.routed.text).toBeUndefined();
    expect(answer.routed.text).toBe(answer.direct.text);
    expect(primaryReads()).toBe(before);
  });
});
