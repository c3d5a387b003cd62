import { parseRegistry, verifyWebhook } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../../worker/src/startWorker.ts";
import {
  createEventSeeder,
  deletePrefixKeys,
  masterKey,
  randomAddress,
  setupDb,
  sleep,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type ReceivedRequest,
  type Receiver,
  type TestDb,
} from "../../worker/test/helpers.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";
import { createTestUser, type TestUser } from "./support/walletFixtures.ts";

// Nothing is lost while a subscription is disabled or paused (issue 14, point 6), end to end: the real API
// (REST and GraphQL), the real worker (dispatcher, BullMQ on the real Redis, signed POSTs), a real receiver on
// loopback, ledger rows written through the indexer's write path. A receiver goes down, the subscription is
// disabled by 5 failed attempts, rows keep arriving while it is disabled, the receiver comes back, the owner
// resumes and recovers since before the outage: every matching row arrives exactly once.

const AGENT = { id: "recover-agent", wallet: randomAddress() };
const OTHER = { id: "other-agent", wallet: randomAddress() };
const MIN = 1_000_000n; // the subscription's filter: min_amount_wei

let db: TestDb;
let t: TestApp;
let worker: RunningWorker;
let receiver: Receiver;
let alice: TestUser;
let bob: TestUser;
let seeder: ReturnType<typeof createEventSeeder>;
const prefix = uniquePrefix("recover");

/** What the receiver answered 2xx to (the rest got a 500 while "down"). */
const accepted: ReceivedRequest[] = [];
let down = false;

async function call(method: string, path: string, options: { user?: TestUser; body?: unknown; cookie?: boolean } = {}) {
  const user = options.user ?? alice;
  const headers: Record<string, string> = { authorization: `Bearer ${user.bearer}` };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${t.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function gql(query: string, variables: Record<string, unknown>, user: TestUser = alice) {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user.bearer}` },
    body: JSON.stringify({ query, variables }),
  });
  return res.json() as Promise<{ data?: Record<string, any>; errors?: { message: string; extensions?: { code?: string } }[] }>;
}

/** An active subscription of alice's to `path` on the receiver, min_amount_wei = MIN; its secret known to the receiver. */
async function activeSubscription(path: string, user: TestUser = alice): Promise<{ id: string; secret: string }> {
  const created = await call("POST", "/api/webhooks", {
    user,
    body: { callback_url: receiver.url(path), label: path, filters: { agent_id: AGENT.id, min_amount_wei: MIN.toString() } },
  });
  expect(created.status).toBe(201);
  receiver.secrets.set(created.body.id, created.body.signing_secret);
  expect((await call("POST", `/api/webhooks/${created.body.id}/verify`, { user, body: { verify_token: created.body.verify_token } })).body.status).toBe(
    "active",
  );
  return { id: created.body.id, secret: created.body.signing_secret };
}

async function pay(amounts: bigint[], agent = AGENT): Promise<bigint[]> {
  const { ids } = await seeder.insert(amounts.map((amount) => ({ from: agent.wallet, to: randomAddress(), amount })));
  return ids;
}

const eventIdsOf = (requests: ReceivedRequest[], sub: string) =>
  requests.filter((r) => r.headers["svc-subscription"] === sub && r.body.type === "svc.event.v1").map((r) => String(r.headers["svc-event-id"]));

async function dispatchedUpTo(id: bigint): Promise<boolean> {
  const { rows } = await db.pool.query("SELECT last_event_id::text AS c FROM event_cursors");
  return rows.length > 0 && BigInt(rows[0].c) >= id;
}

beforeAll(async () => {
  db = await setupDb();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(
    registryDb,
    parseRegistry({
      registry_version: 1,
      network: "devnet",
      entities: [
        { id: AGENT.id, label: "Recover agent", category: "agent", wallets: [AGENT.wallet] },
        { id: OTHER.id, label: "Other agent", category: "agent", wallets: [OTHER.wallet] },
      ],
    }),
    "registry:recover.json",
  );
  await registryDb.end();
  receiver = await startReceiver();
  receiver.overrides.set("hook", (req: ReceivedRequest, res: ServerResponse) => {
    if (down) return void res.writeHead(500).end("down");
    accepted.push(req);
    res.writeHead(204).end();
  });
  seeder = createEventSeeder(db.pool, [AGENT, OTHER]);
  t = await startTestApp(db.url, { webhooks: { masterKey, production: false } });
  [alice, bob] = await Promise.all([createTestUser(db.url), createTestUser(db.url)]);
  worker = await startTestWorker(db, { prefix, timeoutMs: 2_000, leaseMs: 5_000, metricsPort: -1 });
  // The dispatcher's first start begins at the newest row: make sure it has started before any row exists.
  await waitFor(async () => (await db.pool.query("SELECT 1 FROM event_cursors")).rowCount === 1, { what: "dispatch cursor" });
});

afterAll(async () => {
  await worker?.stop(1_000);
  await t?.close();
  await receiver?.close();
  await deletePrefixKeys(prefix);
  await db?.drop();
});

describe("disable by failures → resume → recover since before the outage", () => {
  it("delivers every matching row exactly once, signed, and a second recover changes nothing", async () => {
    const beforeOutage = new Date(Date.now() - 1_000).toISOString();
    const sub = await activeSubscription("hook");

    // Before the outage: delivered as usual (the small one is filtered out, the other agent's row is not ours).
    const before = await pay([MIN, 2n * MIN, MIN - 1n]);
    await pay([5n * MIN], OTHER);
    await waitFor(() => eventIdsOf(accepted, sub.id).length === 2, { what: "deliveries before the outage" });

    // The receiver goes down: 5 rows → 5 failed attempts in a row → disabled_by_failures (spec §6 per-attempt table).
    down = true;
    const during = await pay([MIN, MIN, MIN, MIN, MIN]);
    await waitFor(async () => (await call("GET", `/api/webhooks/${sub.id}`)).body.status === "disabled_by_failures", { what: "disabled", timeoutMs: 30_000 });
    const detail = (await call("GET", `/api/webhooks/${sub.id}`)).body;
    expect(detail).toMatchObject({ status: "disabled_by_failures", consecutive_failures: 5 });

    // Rows that arrive while it is disabled: the dispatcher passes them and creates no delivery.
    const whileDisabled = await pay([3n * MIN, MIN - 1n, 4n * MIN, MIN, 7n * MIN]);
    await waitFor(() => dispatchedUpTo(whileDisabled.at(-1)!), { what: "dispatcher past the rows of the outage" });
    const { rows: none } = await db.pool.query(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = ANY($2::bigint[])",
      [sub.id, whileDisabled.map(String)],
    );
    expect(none[0].n).toBe(0);

    // Recover is refused until it is active again; then the receiver is back and the owner resumes.
    const early = await call("POST", `/api/webhooks/${sub.id}/recover`, { body: { since: beforeOutage } });
    expect([early.status, early.body.error.code]).toEqual([409, "invalid_state"]);
    down = false;
    expect((await call("POST", `/api/webhooks/${sub.id}/resume`)).body).toMatchObject({ status: "active", consecutive_failures: 0 });
    // The 5 held deliveries go out on resume.
    await waitFor(() => eventIdsOf(accepted, sub.id).length === 7, { what: "held deliveries after resume" });

    // Recover since before the outage: only the 4 matching rows that arrived while disabled had no delivery.
    const recovered = await call("POST", `/api/webhooks/${sub.id}/recover`, { body: { since: beforeOutage } });
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ ok: true, id: sub.id, since: new Date(beforeOutage).toISOString(), matched_events: 2 + 5 + 4, deliveries_created: 4 });

    const matching = [before[0]!, before[1]!, ...during, whileDisabled[0]!, whileDisabled[2]!, whileDisabled[3]!, whileDisabled[4]!].map(String);
    await waitFor(() => eventIdsOf(accepted, sub.id).length >= matching.length, { what: "recovered deliveries" });

    // Twice (and two at once) creates nothing more.
    const again = await Promise.all([0, 1].map(() => call("POST", `/api/webhooks/${sub.id}/recover`, { body: { since: beforeOutage } })));
    expect(again.map((r) => [r.status, r.body.deliveries_created, r.body.matched_events])).toEqual([
      [202, 0, 11],
      [202, 0, 11],
    ]);
    await sleep(1_500);

    const got = eventIdsOf(accepted, sub.id);
    expect([...got].sort()).toEqual([...matching].sort()); // each matching row exactly once, nothing else
    expect(new Set(got).size).toBe(got.length);
    const mine = accepted.filter((r) => r.headers["svc-subscription"] === sub.id);
    expect(mine.every((r) => r.verified === true)).toBe(true);
    expect(new Set(mine.map((r) => r.headers["svc-delivery"])).size).toBe(mine.length); // one Svc-Delivery per row
    const { rows: states } = await db.pool.query(
      "SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND type = 'event' GROUP BY status",
      [sub.id],
    );
    expect(states).toEqual([{ status: "succeeded", n: 11 }]);
  });
});

describe("the recover endpoint's rules", () => {
  it("bounds since at 7 days (older is refused, not clamped) and validates it", async () => {
    const sub = await activeSubscription("bounds");
    const day = 24 * 3600 * 1000;
    const tooOld = await call("POST", `/api/webhooks/${sub.id}/recover`, { body: { since: new Date(Date.now() - 7 * day - 60_000).toISOString() } });
    expect([tooOld.status, tooOld.body.error.code]).toEqual([400, "since_too_old"]);
    const oldest = await call("POST", `/api/webhooks/${sub.id}/recover`, { body: { since: new Date(Date.now() - 7 * day + 60_000).toISOString() } });
    expect([oldest.status, oldest.body.ok]).toEqual([202, true]);
    for (const body of [{}, { since: "yesterday" }, { since: "2026-11-25T03:00:00" }, { since: 1764000000 }, { since: "2026-11-25T03:00:00\u0000Z" }]) {
      const r = await call("POST", `/api/webhooks/${sub.id}/recover`, { body });
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([JSON.stringify(body), 400, "invalid_since"]);
    }
    for (const body of [[], "x", { since: new Date().toISOString(), extra: 1 }]) {
      const r = await call("POST", `/api/webhooks/${sub.id}/recover`, { body });
      expect([r.status, r.body.error.code]).toEqual([400, "invalid_body"]);
    }
  });

  it("answers 404 to someone else and for unknown ids, 409 for a subscription that is not active", async () => {
    const sub = await activeSubscription("rules");
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const path of [
      `/api/webhooks/${sub.id}/recover`,
      `/api/webhooks/${sub.id}/test`,
      "/api/webhooks/whs_doesnotexist00/recover",
      "/api/webhooks/whs_doesnotexist00/test",
    ]) {
      const r = await call("POST", path, { user: bob, body: path.endsWith("recover") ? { since } : undefined });
      expect([path, r.status, r.body.error.code]).toEqual([path, 404, "not_found"]);
    }
    expect((await call("POST", `/api/webhooks/${sub.id}/pause`)).body.status).toBe("paused");
    const paused = await Promise.all([call("POST", `/api/webhooks/${sub.id}/recover`, { body: { since } }), call("POST", `/api/webhooks/${sub.id}/test`)]);
    expect(paused.map((r) => [r.status, r.body.error.code])).toEqual([
      [409, "invalid_state"],
      [409, "invalid_state"],
    ]);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND type <> 'verify'", [sub.id]);
    expect(rows[0].n).toBe(0);
  });
});

describe("test event", () => {
  it("goes through the worker signed like any delivery and verifies with verifyWebhook", async () => {
    const sub = await activeSubscription("test-event");
    const r = await call("POST", `/api/webhooks/${sub.id}/test`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      ok: true,
      delivery_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      delivery: { type: "test", status: "pending", event_id: null },
    });
    const arrived = await waitFor(() => receiver.forSubscription(sub.id).find((q) => q.body.type === "svc.webhook.test"), { what: "test event" });
    const verified = verifyWebhook(arrived.rawBody, arrived.headers, sub.secret, { toleranceSeconds: 300, now: new Date() });
    expect(verified).toMatchObject({ deliveryId: r.body.delivery_id, subscriptionId: sub.id });
    expect(arrived.body).toEqual({ type: "svc.webhook.test", id: r.body.delivery_id, delivered_at: expect.any(String), subscription_id: sub.id });
    expect(arrived.headers["user-agent"]).toBe("Svc-Webhooks/1.0");
    expect(arrived.headers["svc-event-id"]).toBeUndefined();
    await waitFor(
      async () =>
        (await call("GET", `/api/webhooks/${sub.id}/deliveries`)).body.items.find(
          (d: { id: string; status: string }) => d.id === r.body.delivery_id && d.status === "succeeded",
        ),
      { what: "test delivery recorded" },
    );
  });

  it("is retried on the schedule and never counts against the subscription", async () => {
    const sub = await activeSubscription("fail"); // the receiver answers 500 on /fail
    const tests = await Promise.all(Array.from({ length: 6 }, () => call("POST", `/api/webhooks/${sub.id}/test`)));
    await waitFor(() => receiver.forSubscription(sub.id).filter((q) => q.body.type === "svc.webhook.test").length === 6, { what: "6 failed test events" });
    await waitFor(
      async () => {
        const { rows } = await db.pool.query(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND type = 'test' AND status = 'retrying' AND attempts = 1",
          [sub.id],
        );
        return rows[0].n === 6;
      },
      { what: "test deliveries retrying" },
    );
    expect(tests.every((x) => x.status === 202)).toBe(true);
    expect((await call("GET", `/api/webhooks/${sub.id}`)).body).toMatchObject({ status: "active", consecutive_failures: 0 });
  });
});

describe("redeliver", () => {
  it("refuses a delivery that already got a 2xx (409 delivery_succeeded): its Svc-Delivery is never sent again", async () => {
    const sub = await activeSubscription("hook");
    const [id] = await pay([MIN]);
    const arrived = await waitFor(() => accepted.find((r) => r.headers["svc-subscription"] === sub.id && r.headers["svc-event-id"] === String(id)), {
      what: "delivery",
    });
    const deliveryId = String(arrived.headers["svc-delivery"]);
    await waitFor(async () => (await db.pool.query("SELECT 1 FROM webhook_deliveries WHERE id = $1 AND status = 'succeeded'", [deliveryId])).rowCount === 1, {
      what: "recorded",
    });
    const r = await call("POST", `/api/webhooks/${sub.id}/deliveries/${deliveryId}/redeliver`);
    expect([r.status, r.body.error.code]).toEqual([409, "delivery_succeeded"]);
    const g = await gql(`mutation($id: ID!, $d: ID!) { redeliverWebhookDelivery(id: $id, deliveryId: $d) { id } }`, { id: sub.id, d: deliveryId });
    expect(g.errors![0]!.extensions!.code).toBe("delivery_succeeded");
    await sleep(1_000);
    expect(accepted.filter((x) => x.headers["svc-delivery"] === deliveryId)).toHaveLength(1);
    const { rows } = await db.pool.query("SELECT status, attempts FROM webhook_deliveries WHERE id = $1", [deliveryId]);
    expect(rows[0]).toEqual({ status: "succeeded", attempts: 1 });
  });
});

describe("GraphQL", () => {
  it("recoverWebhook and testWebhook use the same service and codes", async () => {
    const sub = await activeSubscription("hook");
    const since = new Date(Date.now() - 60_000).toISOString();
    const rec = await gql(`mutation($id: ID!, $since: String!) { recoverWebhook(id: $id, since: $since) { ok since matchedEvents deliveriesCreated } }`, {
      id: sub.id,
      since,
    });
    expect(rec.errors).toBeUndefined();
    expect(rec.data!.recoverWebhook).toMatchObject({ ok: true, since, matchedEvents: expect.any(Number), deliveriesCreated: expect.any(Number) });
    const old = await gql(`mutation($id: ID!, $since: String!) { recoverWebhook(id: $id, since: $since) { ok } }`, {
      id: sub.id,
      since: "2020-01-01T00:00:00Z",
    });
    expect(old.errors![0]!.extensions!.code).toBe("since_too_old");
    const foreign = await gql(`mutation($id: ID!) { testWebhook(id: $id) { id } }`, { id: sub.id }, bob);
    expect(foreign.errors![0]!.extensions!.code).toBe("not_found");
    const test = await gql(`mutation($id: ID!) { testWebhook(id: $id) { id type status } }`, { id: sub.id });
    expect(test.data!.testWebhook).toMatchObject({ type: "test", status: "pending" });
    await waitFor(() => accepted.find((r) => r.headers["svc-delivery"] === test.data!.testWebhook.id && r.verified === true), { what: "GraphQL test event" });
  });
});
