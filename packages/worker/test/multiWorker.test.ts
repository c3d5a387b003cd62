import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/startWorker.ts";
import {
  createEventSeeder,
  createOwner,
  createSubscription,
  deletePrefixKeys,
  deliveryRows,
  randomAddress,
  setupDb,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type Receiver,
  type TestDb,
} from "./helpers.ts";

async function attemptsOf(worker: RunningWorker): Promise<number> {
  const metric = await worker.metrics.attempts.get();
  return metric.values.reduce((n, v) => n + v.value, 0);
}

describe("several workers on one Redis and one database", () => {
  let db: TestDb;
  let receiver: Receiver;
  let workers: RunningWorker[] = [];
  const prefix = uniquePrefix("multi");

  beforeAll(async () => {
    db = await setupDb();
    receiver = await startReceiver();
    workers = await Promise.all([0, 1].map(() => startTestWorker(db, { prefix, concurrency: 8, dispatch: { pollMs: 50 } })));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop(1_000)));
    await receiver?.close();
    await deletePrefixKeys(prefix);
    await db?.drop();
  });

  it("share the work without double sends: every delivery reaches its receiver exactly once", async () => {
    const owner = await createOwner(db.pool);
    const agents = [0, 1].map((i) => ({ id: `multi-${i}`, wallet: randomAddress() }));
    receiver.overrides.set("slowish", (_r, res) =>
      setTimeout(() => {
        res.writeHead(200);
        res.end();
      }, 5),
    );
    const subs: { id: string }[] = [];
    for (const a of agents)
      for (let k = 0; k < 3; k++) subs.push(await createSubscription(db.pool, { owner, callbackUrl: receiver.url("slowish"), agentId: a.id }));
    const seeder = createEventSeeder(db.pool, agents);
    for (let b = 0; b < 10; b++)
      await seeder.insert(
        agents.flatMap((a) => Array.from({ length: 5 }, (_, i) => ({ from: a.wallet, to: randomAddress(), amount: BigInt(b * 10 + i + 1) }))),
      );
    const expected = 2 * 50 * 3;
    await waitFor(
      async () => {
        const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'");
        return rows[0].n === expected;
      },
      { timeoutMs: 30_000, what: `${expected} deliveries succeeded` },
    );

    const bySvcDelivery = new Map<string, number>();
    for (const r of receiver.requests.filter((x) => x.path === "/slowish"))
      bySvcDelivery.set(r.headers["svc-delivery"] as string, (bySvcDelivery.get(r.headers["svc-delivery"] as string) ?? 0) + 1);
    expect(bySvcDelivery.size).toBe(expected);
    expect([...bySvcDelivery.values()].every((n) => n === 1)).toBe(true);
    const rows = (await Promise.all(subs.map((s) => deliveryRows(db.pool, s.id)))).flat();
    expect(rows.every((d) => d.attempts === 1)).toBe(true);
    // Both processes took part.
    const [a, b] = await Promise.all(workers.map(attemptsOf));
    expect(a! + b!).toBe(expected);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);

    // A redeliver NOTIFY reaches both listeners: still one attempt.
    const target = rows[0]!;
    await db.pool.query("UPDATE webhook_deliveries SET status = 'retrying', next_attempt_at = now(), completed_at = NULL WHERE id = $1", [target.id]);
    await db.pool.query("SELECT pg_notify('webhook_deliveries', $1)", [target.id]);
    await waitFor(async () => (await deliveryRows(db.pool, subs[0]!.id)).find((d) => d.id === target.id)?.status === "succeeded", { what: "redelivered" });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter((r) => r.headers["svc-delivery"] === target.id)).toHaveLength(2);
    expect((await deliveryRows(db.pool, subs[0]!.id)).find((d) => d.id === target.id)!.attempts).toBe(2);
  }, 45_000);
});
