import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REDIS_URL,
  createEventSeeder,
  createOwner,
  createSubscription,
  deletePrefixKeys,
  deliveryRows,
  masterKey,
  randomAddress,
  setupDb,
  sleep,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type Receiver,
  type TestDb,
} from "./helpers.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

function spawnWorker(db: TestDb, prefix: string, extraEnv: Record<string, string> = {}): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, ["--import", "tsx", "packages/worker/src/main.ts"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      SECRETS_MASTER_KEY: masterKey.toString("hex"),
      NODE_ENV: "test",
      WORKER_METRICS_PORT: "-1",
      WORKER_CONCURRENCY: "4",
      DELIVERY_TIMEOUT_MS: "3000",
      DELIVERY_LEASE_MS: "4000",
      MAINTENANCE_INTERVAL_MS: "500",
      DISPATCH_POLL_MS: "200",
      WORKER_SHUTDOWN_GRACE_MS: "5000",
      LOG_LEVEL: "info",
      METHODOLOGY_VERSION: "v0.1",
      ...extraEnv, // the seeded rows are v0.1 (the default is v0.2)
    },
    stdio: ["ignore", "pipe", "pipe"],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout!.on("data", (b: Buffer) => child.output.push(b.toString()));
  child.stderr!.on("data", (b: Buffer) => child.output.push(b.toString()));
  return child;
}

const ready = (child: ChildProcess & { output: string[] }) =>
  waitFor(() => child.output.join("").includes("webhook worker ready"), { timeoutMs: 40_000, what: "worker child ready" });
const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });

describe("crash safety: nothing is lost when the worker dies or Redis forgets", () => {
  let db: TestDb;
  let receiver: Receiver;
  let owner: string;
  const prefixes: string[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await setupDb();
    receiver = await startReceiver();
    owner = await createOwner(db.pool);
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await receiver?.close();
    for (const p of prefixes) await deletePrefixKeys(p);
    await db?.drop();
  });

  it("SIGKILL mid-delivery, restart: every delivery ends succeeded, none lost (in-flight attempts are retried after their lease)", async () => {
    const prefix = uniquePrefix("kill");
    prefixes.push(prefix);
    let hold = true;
    const held: (() => void)[] = [];
    receiver.overrides.set("slow", (_r, res) => {
      if (hold)
        held.push(() => {
          res.writeHead(200);
          res.end();
        });
      else {
        res.writeHead(200);
        res.end();
      }
    });
    const agent = { id: "kill-agent", wallet: randomAddress() };
    const sub = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("slow"), agentId: agent.id });

    const first = spawnWorker(db, prefix);
    children.push(first);
    await ready(first);
    await createEventSeeder(db.pool, [agent]).insert(
      Array.from({ length: 10 }, (_, i) => ({ from: agent.wallet, to: randomAddress(), amount: BigInt(i + 1) })),
    );
    // concurrency 4: all slots busy. Generous: other test files (the indexer's backfill crash test, browsers) may keep
    // both cores busy while this worker child warms up; speed is not what this test is about.
    await waitFor(() => held.length >= 4, { timeoutMs: 90_000, what: "4 deliveries in flight" }).catch((error: Error) => {
      throw new Error(`${error.message}; ${held.length} arrived; the worker child said:\n${first.output.join("").slice(-3000)}`);
    });
    first.kill("SIGKILL");
    expect((await exited(first)).signal).toBe("SIGKILL");
    hold = false;

    const before = await deliveryRows(db.pool, sub.id);
    expect(before).toHaveLength(10);
    const claimed = before.filter((d) => d.attempts === 1);
    expect(claimed.length).toBeGreaterThanOrEqual(4); // claimed by the dead process, nothing recorded
    expect(claimed.every((d) => d.status === "pending" && d.last_http_status === null && d.next_attempt_at !== null)).toBe(true);

    const second = spawnWorker(db, prefix);
    children.push(second);
    await ready(second);
    const after = await waitFor(
      async () => {
        const rows = await deliveryRows(db.pool, sub.id);
        return rows.every((d) => d.status === "succeeded") ? rows : null;
      },
      { timeoutMs: 40_000, what: "all deliveries succeeded after restart" },
    );
    // The attempts interrupted by the kill count as attempts; the others went out once.
    for (const d of after) expect(d.attempts).toBe(claimed.some((c) => c.id === d.id) ? 2 : 1);
    // Every delivery reached the receiver (the interrupted ones twice, with the same Svc-Delivery: dedupe on it).
    const seen = new Map<string, number>();
    for (const r of receiver.forSubscription(sub.id)) seen.set(r.headers["svc-delivery"] as string, (seen.get(r.headers["svc-delivery"] as string) ?? 0) + 1);
    expect([...seen.keys()].sort()).toEqual(after.map((d) => d.id).sort());

    // SIGTERM is graceful: the in-flight POST finishes and is recorded before the process exits.
    receiver.overrides.set("slow", (_r, res) =>
      setTimeout(() => {
        res.writeHead(200);
        res.end();
      }, 700),
    );
    await createEventSeeder(db.pool, [agent], { streamId: "tempo-test-2" }).insert([{ from: agent.wallet, to: randomAddress(), amount: 77n }]);
    await waitFor(() => receiver.forSubscription(sub.id).length === seen.size + claimed.length + 1, { what: "the last delivery in flight" });
    second.kill("SIGTERM");
    expect(await exited(second)).toEqual({ code: 0, signal: null });
    const last = await deliveryRows(db.pool, sub.id);
    expect(last).toHaveLength(11);
    expect(last.every((d) => d.status === "succeeded")).toBe(true);
  }, 240_000);

  it("Redis loses every key of the queue (jobs, delayed retries, the minute job itself): the minute job comes back and restores every due delivery", async () => {
    const prefix = uniquePrefix("flush");
    prefixes.push(prefix);
    let offsetMs = 0;
    const now = () => new Date(Date.now() + offsetMs);
    const worker = await startTestWorker(db, { prefix, now, maintenanceIntervalMs: 300, dispatch: { cursorId: "flush", pollMs: 100 } });
    try {
      await worker.dispatcher!.idle();
      let throttle = true;
      receiver.overrides.set("later", (_r, res) => {
        if (throttle) {
          res.writeHead(429, { "Retry-After": "3600" });
          res.end();
        } else {
          res.writeHead(200);
          res.end();
        }
      });
      const a = { id: "flush-retrying", wallet: randomAddress() };
      const b = { id: "flush-pending", wallet: randomAddress() };
      const retrying = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("later"), agentId: a.id });
      const pending = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: b.id });
      // Four (a fifth consecutive failure would disable the subscription).
      await createEventSeeder(db.pool, [a], { streamId: "flush-a" }).insert(
        Array.from({ length: 4 }, (_, i) => ({ from: a.wallet, to: randomAddress(), amount: BigInt(i + 1) })),
      );
      await waitFor(async () => (await deliveryRows(db.pool, retrying.id)).filter((d) => d.status === "retrying").length === 4, {
        what: "4 retries scheduled in 1 h",
      });

      // Deliveries whose enqueue never happened (Redis down at dispatch time): rows only, due now.
      const { rows: evs } = await db.pool.query("SELECT id FROM agent_events ORDER BY id DESC LIMIT 5");
      for (const e of evs) {
        await db.pool.query(
          "INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, next_attempt_at) VALUES (gen_random_uuid(), $1, $2, 'event', 'pending', now())",
          [pending.id, e.id],
        );
      }

      const redis = new Redis(REDIS_URL);
      expect(await redis.keys(`${prefix}:*`)).not.toHaveLength(0);
      const deleted = await deletePrefixKeys(prefix);
      expect(deleted).toBeGreaterThan(0);
      expect(await redis.exists(`${prefix}:webhook-deliveries:delayed`)).toBe(0);

      // An hour later (injected clock), the receiver accepts again: the minute job, re-created by the
      // worker itself, finds every due delivery and re-enqueues it.
      throttle = false;
      offsetMs = 2 * 3600_000;
      const done = await waitFor(
        async () => {
          const rows = [...(await deliveryRows(db.pool, retrying.id)), ...(await deliveryRows(db.pool, pending.id))];
          return rows.length === 9 && rows.every((d) => d.status === "succeeded") ? rows : null;
        },
        { timeoutMs: 15_000, what: "every due delivery restored and sent" },
      );
      expect(done.filter((d) => d.attempts === 2)).toHaveLength(4); // the 429 ones: second attempt
      expect(done.filter((d) => d.attempts === 1)).toHaveLength(5); // never enqueued before
      expect(await worker.maintenanceQueue.getJobScheduler("requeue-due-deliveries")).toMatchObject({ every: 300 });
      redis.disconnect();
    } finally {
      await worker.stop(1_000);
    }
  }, 40_000);
});
