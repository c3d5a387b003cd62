import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DELIVERY_QUEUE } from "../src/constants.ts";
import { createDispatcher } from "../src/dispatch/createDispatcher.ts";
import type { DeliveryJobData } from "../src/queue/deliveryJob.ts";
import {
  ALPHA_USD,
  PATH_USD,
  REDIS_URL,
  createEventSeeder,
  createOwner,
  createSubscription,
  deletePrefixKeys,
  deliveryRows,
  randomAddress,
  setupDb,
  silentLog,
  sleep,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type TestDb,
} from "./helpers.ts";
import { createPgPool } from "@agent-ledger/db";

describe("dispatcher: durable cursor, filters, exactly one delivery per (subscription, event)", () => {
  let db: TestDb;
  let owner: string;
  let redis: Redis;
  const prefixes: string[] = [];

  beforeAll(async () => {
    db = await setupDb();
    owner = await createOwner(db.pool);
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis?.disconnect();
    for (const p of prefixes) await deletePrefixKeys(p);
    await db?.drop();
  });

  function queueFor(label: string) {
    const prefix = uniquePrefix(label);
    prefixes.push(prefix);
    return { prefix, queue: new Queue<DeliveryJobData>(DELIVERY_QUEUE, { connection: redis, prefix }) };
  }

  it("two dispatchers racing over the same rows create exactly one delivery per (subscription, event)", async () => {
    const agent = { id: "race-agent", wallet: randomAddress() };
    const subs = await Promise.all([0, 1, 2].map(() => createSubscription(db.pool, { owner, callbackUrl: "http://127.0.0.1:9/x", agentId: agent.id })));
    const { queue } = queueFor("race");
    const pools = [createPgPool(db.url, { max: 2 }), createPgPool(db.url, { max: 2 }), createPgPool(db.url, { max: 2 })];
    for (const p of pools) p.on("error", () => {});
    onTestFinished(async () => {
      await queue.close();
      await Promise.all(pools.map((p) => p.end()));
    });
    // Same cursor (they take turns: SKIP LOCKED) and a second cursor over the same rows (they really
    // collide, and the unique (subscription_id, event_id) decides).
    const dispatchers = [
      createDispatcher(
        { pool: pools[0]!, queue, log: silentLog, now: () => new Date() },
        { cursorId: "race-a", methodologyVersion: "v0.1", pageSize: 37, pollMs: 0 },
      ),
      createDispatcher(
        { pool: pools[1]!, queue, log: silentLog, now: () => new Date() },
        { cursorId: "race-a", methodologyVersion: "v0.1", pageSize: 37, pollMs: 0 },
      ),
      createDispatcher(
        { pool: pools[2]!, queue, log: silentLog, now: () => new Date() },
        { cursorId: "race-b", methodologyVersion: "v0.1", pageSize: 53, pollMs: 0 },
      ),
    ];
    await Promise.all(dispatchers.map((d) => d.runOnce())); // initialise the cursors at "now"
    const seeder = createEventSeeder(db.pool, [agent]);
    const writes = (async () => {
      for (let i = 0; i < 10; i++)
        await seeder.insert(Array.from({ length: 30 }, (_, j) => ({ from: agent.wallet, to: randomAddress(), amount: BigInt(i * 100 + j) })));
    })();
    let created = 0;
    const racing = dispatchers.map(async (d) => {
      for (let i = 0; i < 30; i++) {
        const { deliveriesCreated } = await d.runOnce();
        created += deliveriesCreated;
        await sleep(5);
      }
    });
    await Promise.all([writes, ...racing]);
    for (const d of dispatchers) {
      const { deliveriesCreated } = await d.runOnce();
      created += deliveriesCreated;
    }

    const { rows } = await db.pool.query(
      "SELECT subscription_id, event_id, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ANY($1) GROUP BY 1, 2",
      [subs.map((s) => s.id)],
    );
    expect(rows).toHaveLength(300 * 3);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(created).toBe(900); // what the dispatchers report creating: conflicts are not counted twice
    // Each created delivery was enqueued once, as attempt 1.
    const counts = await queue.getJobCounts("waiting", "delayed", "prioritized");
    expect(counts.waiting! + counts.delayed! + counts.prioritized!).toBe(900);
    const cursors = await db.pool.query("SELECT id, last_event_id::text AS v FROM event_cursors WHERE id IN ('race-a', 'race-b') ORDER BY id");
    const {
      rows: [{ max }],
    } = await db.pool.query("SELECT max(id)::text AS max FROM agent_events");
    expect(cursors.rows.map((r) => r.v)).toEqual([max, max]);
  });

  it("filters are ANDed (recipient, routed_to, min_amount as big integers, token); only the live methodology version is dispatched", async () => {
    const agent = { id: "filter-agent", wallet: randomAddress() };
    const shop = randomAddress();
    const huge = 2n ** 80n;
    const mk = (f: Parameters<typeof createSubscription>[1] extends infer T ? Partial<T> : never) =>
      createSubscription(db.pool, { owner, callbackUrl: "http://127.0.0.1:9/x", agentId: agent.id, ...f });
    const all = await mk({});
    const toShop = await mk({ recipient: shop });
    const bigOnly = await mk({ minAmountWei: huge });
    const alphaToShop = await mk({ recipient: shop, token: ALPHA_USD });
    const routed = await mk({ routedTo: randomAddress() }); // no event is routed: never matches
    const otherAgent = await createSubscription(db.pool, { owner, callbackUrl: "http://127.0.0.1:9/x", agentId: "someone-else" });
    const paused = await mk({ status: "paused" });
    const pending = await mk({ status: "pending_verify" });

    const { queue } = queueFor("filters");
    const dispatcher = createDispatcher(
      { pool: db.pool, queue, log: silentLog, now: () => new Date() },
      { cursorId: "filters", methodologyVersion: "v0.1", pageSize: 1000, pollMs: 0 },
    );
    await dispatcher.runOnce();
    const seeder = createEventSeeder(db.pool, [agent]);
    const { ids } = await seeder.insert([
      { from: agent.wallet, to: shop, amount: 1n, token: PATH_USD },
      { from: agent.wallet, to: shop, amount: huge, token: ALPHA_USD },
      { from: agent.wallet, to: randomAddress(), amount: huge - 1n },
      { from: agent.wallet, to: randomAddress(), amount: huge + 1n },
    ]);
    await seeder.insert([{ from: agent.wallet, to: shop, amount: huge * 2n, token: ALPHA_USD }], { version: "v9.9" }); // not live
    await dispatcher.runOnce();
    const got = async (s: { id: string }) => (await deliveryRows(db.pool, s.id)).map((d) => BigInt(d.event_id!) - ids[0]!);
    expect(await got(all)).toEqual([0n, 1n, 2n, 3n]);
    expect(await got(toShop)).toEqual([0n, 1n]);
    expect(await got(bigOnly)).toEqual([1n, 3n]);
    expect(await got(alphaToShop)).toEqual([1n]);
    expect(await got(routed)).toEqual([]);
    expect(await got(otherAgent)).toEqual([]);
    expect(await got(paused)).toEqual([]);
    expect(await got(pending)).toEqual([]);
    await queue.close();
  });

  it("never skips a row committed late with a lower id (the watermark waits for in-flight inserts)", async () => {
    const agent = { id: "gap-agent", wallet: randomAddress() };
    const sub = await createSubscription(db.pool, { owner, callbackUrl: "http://127.0.0.1:9/x", agentId: agent.id });
    const { queue } = queueFor("gap");
    const dispatcher = createDispatcher(
      { pool: db.pool, queue, log: silentLog, now: () => new Date() },
      { cursorId: "gap", methodologyVersion: "v0.1", pageSize: 1000, pollMs: 0 },
    );
    await dispatcher.runOnce();
    // Writer A takes an id and holds its transaction open; writer B takes a higher id and commits.
    const a = await db.pool.connect();
    await a.query("BEGIN");
    const insertRow = (client: { query: typeof a.query }, n: number) =>
      client.query(
        `INSERT INTO agent_events (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, kind, amount_wei, token_address,
         tx_hash, log_index, source_block, methodology_version, explorer_url)
       VALUES (now(), $1, 'Gap', 'agent', $2, '', 'payment_sent', $3, $4, $5, 0, 1, 'v0.1', 'https://explore.test') RETURNING id::text`,
        [agent.id, randomAddress(), n, PATH_USD, `0x${n.toString(16).padStart(64, "0")}`],
      );
    const low = (await insertRow(a, 1)).rows[0].id as string;
    const high = (await insertRow(db.pool as never, 2)).rows[0].id as string;
    expect(BigInt(high)).toBeGreaterThan(BigInt(low));
    const pass = dispatcher.runOnce(); // blocks on the in-flight insert instead of jumping over it
    await sleep(300);
    await a.query("COMMIT");
    a.release();
    await pass;
    expect((await deliveryRows(db.pool, sub.id)).map((d) => d.event_id)).toEqual([low, high]);
    await queue.close();
  });

  it("rows that land while no worker runs are delivered when one starts; a subscription starts with events after its activation", async () => {
    const agent = { id: "down-agent", wallet: randomAddress() };
    const receiver = await startReceiver();
    const prefix = uniquePrefix("down");
    prefixes.push(prefix);
    const early = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: agent.id });
    let worker = await startTestWorker(db, { prefix });
    await worker.dispatcher!.idle();
    await worker.stop();
    // Worker down: three events land; meanwhile a second subscription is still pending verification.
    const late = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: agent.id, status: "pending_verify" });
    const seeder = createEventSeeder(db.pool, [agent]);
    const first = await seeder.insert([1n, 2n, 3n].map((amount) => ({ from: agent.wallet, to: randomAddress(), amount })));
    worker = await startTestWorker(db, { prefix });
    await waitFor(() => receiver.forSubscription(early.id).length === 3, { what: "backlog delivered" });
    // The second subscription becomes active now: it gets the events dispatched from here on only.
    await db.pool.query("UPDATE webhook_subscriptions SET status = 'active', verified_at = now() WHERE id = $1", [late.id]);
    const second = await seeder.insert([{ from: agent.wallet, to: randomAddress(), amount: 4n }]);
    await waitFor(() => receiver.forSubscription(late.id).length === 1 && receiver.forSubscription(early.id).length === 4, {
      what: "new event delivered to both",
    });
    // All of the backlog, then the new one (no ordering guarantee between concurrent deliveries: sorted).
    expect(
      receiver
        .forSubscription(early.id)
        .map((r) => Number(r.headers["svc-event-id"]))
        .sort((x, y) => x - y),
    ).toEqual([...first.ids, ...second.ids].map(Number));
    expect(receiver.forSubscription(late.id).map((r) => r.headers["svc-event-id"])).toEqual(second.ids.map(String));
    await worker.stop();
    await receiver.close();
  });

  it("a dropped LISTEN connection reconnects and catches up (no poll: NOTIFY only)", async () => {
    const agent = { id: "listen-agent", wallet: randomAddress() };
    const receiver = await startReceiver();
    const prefix = uniquePrefix("listen");
    prefixes.push(prefix);
    const sub = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: agent.id });
    const worker = await startTestWorker(db, { prefix, dispatch: { pollMs: 0, cursorId: "listen" } });
    try {
      await worker.dispatcher!.idle();
      const seeder = createEventSeeder(db.pool, [agent], { streamId: "listen" });
      await seeder.insert([{ from: agent.wallet, to: randomAddress(), amount: 1n }]);
      await waitFor(() => receiver.forSubscription(sub.id).length === 1, { what: "first event via NOTIFY" });
      const killed = await db.pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'agent-ledger-worker-listen'",
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      // Written while the listener is down: its NOTIFY is lost; the reconnect's catch-up pass finds the row.
      await seeder.insert([{ from: agent.wallet, to: randomAddress(), amount: 2n }]);
      await waitFor(() => receiver.forSubscription(sub.id).length === 2, { what: "event after the reconnect" });
      await seeder.insert([{ from: agent.wallet, to: randomAddress(), amount: 3n }]);
      await waitFor(() => receiver.forSubscription(sub.id).length === 3, { what: "NOTIFY works again" });
    } finally {
      await worker.stop(1_000);
      await receiver.close();
    }
  });

  it('startWorker resolves only after the first dispatch pass: the cursor exists, so events written after "ready" are never skipped', async () => {
    // Hold agent_events so the first pass is slow (as on a loaded machine). Before the fix, "ready" came first and a
    // cursor created later started past the events written in between: they were never delivered.
    const blocker = await db.pool.connect();
    await blocker.query("BEGIN; LOCK TABLE agent_events IN ACCESS EXCLUSIVE MODE");
    const prefix = uniquePrefix("ready");
    prefixes.push(prefix);
    const released = sleep(1_500)
      .then(() => blocker.query("COMMIT"))
      .finally(() => blocker.release());
    const started = Date.now();
    const worker = await startTestWorker(db, { prefix, deliver: false, dispatch: { cursorId: "ready-cursor", pollMs: 60_000 } });
    try {
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      const { rows } = await db.pool.query("SELECT last_event_id::text AS id FROM event_cursors WHERE id = 'ready-cursor'");
      expect(rows).toHaveLength(1);
    } finally {
      await released;
      await worker.stop();
    }
  });
});
