import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from "@agent-ledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptInfo } from "../src/delivery/createDeliveryProcessor.ts";
import type { RunningWorker } from "../src/startWorker.ts";
import {
  createEventSeeder,
  createOwner,
  createSubscription,
  createVerifyPing,
  deletePrefixKeys,
  deliveryRows,
  randomAddress,
  scaledClock,
  setupDb,
  startReceiver,
  startTestWorker,
  subscriptionRow,
  uniquePrefix,
  waitFor,
  type Receiver,
  type TestDb,
} from "./helpers.ts";

// Retry timing without sleeping hours: the worker runs on a clock SCALE times faster than real time and
// divides every real wait by SCALE. Stored times are the true schedule (30 s, 2 m, 10 m, 30 m, 2 h, 6 h,
// 12 h, jitter pinned to -20 % by random() = 0); the delayed jobs really wait for them (scaled).
const SCALE = 20_000;

describe("retry schedule under a scaled clock", () => {
  let db: TestDb;
  let receiver: Receiver;
  let worker: RunningWorker;
  const prefix = uniquePrefix("retry");
  const clock = scaledClock(SCALE);
  const attempts: AttemptInfo[] = [];

  beforeAll(async () => {
    db = await setupDb();
    receiver = await startReceiver({ now: clock });
    worker = await startTestWorker(db, { prefix, now: clock, random: () => 0, delayScale: SCALE, onAttempt: (a) => attempts.push(a), leaseMs: 5_000 });
  });
  afterAll(async () => {
    await worker?.stop(1_000);
    await receiver?.close();
    await deletePrefixKeys(prefix);
    await db?.drop();
  });

  it("a failing verification ping is retried on the spec's schedule, 8 attempts, then dead (pending_verify failures do not count)", async () => {
    const owner = await createOwner(db.pool);
    const sub = await createSubscription(db.pool, {
      owner,
      callbackUrl: receiver.url("fail"),
      agentId: "agent-x",
      status: "pending_verify",
      verifyExpiresAt: new Date(clock().getTime() + 48 * 3600_000),
    });
    receiver.secrets.set(sub.id, sub.secret);
    const deliveryId = await createVerifyPing(db.pool, sub.id, clock());
    const [row] = await waitFor(
      async () => {
        const rows = await deliveryRows(db.pool, sub.id);
        return rows[0]?.status === "dead" ? rows : null;
      },
      { timeoutMs: 20_000, what: "verify ping dead after 8 attempts" },
    );
    expect(row).toMatchObject({ id: deliveryId, type: "verify", status: "dead", attempts: MAX_ATTEMPTS, last_http_status: 500, next_attempt_at: null });

    const mine = attempts.filter((a) => a.deliveryId === deliveryId);
    expect(mine.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(mine.map((a) => a.status)).toEqual([...Array(7).fill("retrying"), "dead"]);
    for (let k = 0; k < 7; k++) {
      const a = mine[k]!;
      // The stored schedule is exact: 0.8 × (30 s, 2 m, 10 m, 30 m, 2 h, 6 h, 12 h).
      expect(a.nextAttemptAt!.getTime() - a.finishedAt.getTime()).toBe(0.8 * RETRY_SCHEDULE_MS[k]!);
      // And the next attempt really waited for it: never early (2 real ms of slack for timer rounding),
      // and not much later than due (0.4 real s).
      const next = mine[k + 1]!;
      expect(next.claimedAt.getTime()).toBeGreaterThanOrEqual(a.nextAttemptAt!.getTime() - 2 * SCALE);
      expect(next.claimedAt.getTime()).toBeLessThanOrEqual(a.nextAttemptAt!.getTime() + 400 * SCALE);
    }
    // Every attempt carried the same Svc-Delivery and the verify body.
    const seen = receiver.forSubscription(sub.id);
    expect(seen).toHaveLength(8);
    expect(new Set(seen.map((r) => r.headers["svc-delivery"]))).toEqual(new Set([deliveryId]));
    expect(seen.every((r) => r.verified)).toBe(true);
    expect(seen[0]!.body).toEqual({ type: "svc.webhook.verify", verify_token: sub.verifyToken, subscription_id: sub.id });
    expect(seen[0]!.headers["svc-event-id"]).toBeUndefined();
    expect(await subscriptionRow(db.pool, sub.id)).toMatchObject({ status: "pending_verify", consecutive_failures: 0 });
  }, 30_000);

  it("honours a Retry-After longer than the schedule, then succeeds and resets consecutive_failures", async () => {
    const owner = await createOwner(db.pool);
    const agent = { id: "agent-429", wallet: randomAddress() };
    let calls = 0;
    receiver.overrides.set("ra", (_r, res) => {
      calls++;
      if (calls === 1) {
        res.writeHead(429, { "Retry-After": "7200" });
        res.end();
        return;
      }
      res.writeHead(200);
      res.end();
    });
    const sub = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ra"), agentId: agent.id, consecutiveFailures: 2 });
    await createEventSeeder(db.pool, [agent]).insert([{ from: agent.wallet, to: randomAddress(), amount: 5n }]);
    const [row] = await waitFor(
      async () => {
        const rows = await deliveryRows(db.pool, sub.id);
        return rows[0]?.status === "succeeded" ? rows : null;
      },
      { what: "delivered after Retry-After" },
    );
    const mine = attempts.filter((a) => a.deliveryId === row!.id);
    expect(mine[0]!.nextAttemptAt!.getTime() - mine[0]!.finishedAt.getTime()).toBe(7_200_000);
    expect(mine[1]!.claimedAt.getTime()).toBeGreaterThanOrEqual(mine[0]!.nextAttemptAt!.getTime() - 2 * SCALE);
    expect(row!.attempts).toBe(2);
    expect(await subscriptionRow(db.pool, sub.id)).toMatchObject({ status: "active", consecutive_failures: 0 });
  });

  it("an expired verify token kills the ping without any request", async () => {
    const owner = await createOwner(db.pool);
    const sub = await createSubscription(db.pool, {
      owner,
      callbackUrl: receiver.url("ok"),
      agentId: "agent-y",
      status: "pending_verify",
      verifyExpiresAt: new Date(clock().getTime() - 1_000),
    });
    await createVerifyPing(db.pool, sub.id, clock());
    const [row] = await waitFor(
      async () => {
        const rows = await deliveryRows(db.pool, sub.id);
        return rows[0]?.status === "dead" ? rows : null;
      },
      { what: "expired ping dead" },
    );
    expect(row).toMatchObject({ attempts: 0, last_error: "verify token expired" });
    expect(receiver.forSubscription(sub.id)).toHaveLength(0);
  });
});
