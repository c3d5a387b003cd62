import { verifyWebhook } from "@agent-ledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/startWorker.ts";
import {
  createEventSeeder,
  createOwner,
  createSubscription,
  createVerifyPing,
  deletePrefixKeys,
  deliveryRows,
  randomAddress,
  resumeSubscription,
  setupDb,
  startReceiver,
  startTestWorker,
  subscriptionRow,
  uniquePrefix,
  waitFor,
  type Receiver,
  type TestDb,
} from "./helpers.ts";

// The outcome table and the subscription state machine, end to end: real PostgreSQL, real Redis,
// real HTTP receivers on loopback, events written through the indexer's write path.

const SPEC_EVENT_FIELDS = [
  "id",
  "ts",
  "agent_id",
  "agent_label",
  "agent_category",
  "counterparty_address",
  "counterparty_label",
  "counterparty_category",
  "kind",
  "amount_wei",
  "token_address",
  "tx_hash",
  "source_block",
  "methodology_version",
  "routed_to_address",
  "routed_to_label",
  "routed_fingerprint",
  "explorer_url",
];

describe("delivery outcomes (spec §6) with real Redis, PostgreSQL and receivers", () => {
  let db: TestDb;
  let receiver: Receiver;
  let worker: RunningWorker;
  let owner: string;
  const prefix = uniquePrefix("outcomes");
  const agents = ["ok", "gone", "bad", "throttled", "fail", "hang", "redirect", "flaky", "pausing"].map((b) => ({
    id: `agent-${b}`,
    wallet: randomAddress(),
    behavior: b,
  }));
  let seeder: ReturnType<typeof createEventSeeder>;

  beforeAll(async () => {
    db = await setupDb();
    receiver = await startReceiver();
    owner = await createOwner(db.pool);
    seeder = createEventSeeder(db.pool, agents);
    worker = await startTestWorker(db, { prefix, timeoutMs: 400, leaseMs: 3_000, metricsPort: 0 });
  });
  afterAll(async () => {
    await worker?.stop(1_000);
    await receiver?.close();
    await deletePrefixKeys(prefix);
    await db?.drop();
  });

  it("applies the outcome table to each receiver answer, and counts consecutive_failures exactly", async () => {
    const subs = new Map<string, { id: string; secret: string; failuresBefore: number }>();
    for (const [i, a] of agents.slice(0, 7).entries()) {
      const failuresBefore = i % 4; // 0..3: 2xx must reset it, 410/4xx/3xx must leave it, retries add one
      const s = await createSubscription(db.pool, { owner, callbackUrl: receiver.url(a.behavior), agentId: a.id, consecutiveFailures: failuresBefore });
      receiver.secrets.set(s.id, s.secret);
      subs.set(a.behavior, { ...s, failuresBefore });
    }
    await seeder.insert(agents.slice(0, 7).map((a) => ({ from: a.wallet, to: randomAddress(), amount: 1_000_000n })));

    const expected: Record<string, { status: string; http: number | null; failures: (before: number) => number; subStatus: string; error?: RegExp }> = {
      ok: { status: "succeeded", http: 200, failures: () => 0, subStatus: "active" },
      gone: { status: "dead", http: 410, failures: (b) => b, subStatus: "paused", error: /HTTP 410/ },
      bad: { status: "dead", http: 400, failures: (b) => b, subStatus: "active", error: /HTTP 400: bad request/ },
      throttled: { status: "retrying", http: 429, failures: (b) => b + 1, subStatus: "active", error: /HTTP 429/ },
      fail: { status: "retrying", http: 500, failures: (b) => b + 1, subStatus: "active", error: /HTTP 500: boom/ },
      hang: { status: "retrying", http: null, failures: (b) => b + 1, subStatus: "active", error: /timeout after 400 ms/ },
      redirect: { status: "dead", http: 302, failures: (b) => b, subStatus: "active", error: /HTTP 302/ },
    };
    for (const [behavior, exp] of Object.entries(expected)) {
      const sub = subs.get(behavior)!;
      const [d] = await waitFor(
        async () => {
          const rows = await deliveryRows(db.pool, sub.id);
          return rows.length === 1 && rows[0]!.attempts === 1 && rows[0]!.status !== "pending" ? rows : null;
        },
        { what: `${behavior} delivery recorded` },
      );
      expect(d!.status, behavior).toBe(exp.status);
      expect(d!.last_http_status, behavior).toBe(exp.http);
      if (exp.error) expect(d!.last_error, behavior).toMatch(exp.error);
      else expect(d!.last_error, behavior).toBeNull();
      expect(d!.last_response_ms, behavior).toBeGreaterThanOrEqual(0);
      expect(d!.last_attempt_at, behavior).toBeInstanceOf(Date);
      if (exp.status === "retrying") {
        expect(d!.completed_at).toBeNull();
        const gap = d!.next_attempt_at!.getTime() - d!.last_attempt_at!.getTime();
        if (behavior === "throttled")
          expect(gap).toBeGreaterThanOrEqual(3_600_000); // Retry-After: 3600 beats 30 s ± 20 %
        else {
          expect(gap).toBeGreaterThanOrEqual(24_000); // 30 s − 20 %
          expect(gap).toBeLessThanOrEqual(36_000 + 1_000); // 30 s + 20 % (+ the attempt's own duration)
        }
      } else {
        expect(d!.next_attempt_at, behavior).toBeNull();
        expect(d!.completed_at, behavior).toBeInstanceOf(Date);
      }
      const s = await subscriptionRow(db.pool, sub.id);
      expect(s.status, behavior).toBe(exp.subStatus);
      expect(s.consecutive_failures, behavior).toBe(exp.failures(sub.failuresBefore));
      if (behavior === "gone") expect(s.status_reason).toMatch(/410/);
    }
    // No redirect was followed: the redirect's target never saw that subscription.
    expect(receiver.forSubscription(subs.get("redirect")!.id).map((r) => r.path)).toEqual(["/redirect"]);
    // The hanging receiver got exactly one request (the attempt timed out, the retry is 30 s away).
    expect(receiver.forSubscription(subs.get("hang")!.id)).toHaveLength(1);

    // Metrics saw every outcome.
    const text = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
    for (const outcome of ["success", "gone", "reject", "retry"]) {
      expect(text).toMatch(new RegExp(`agent_ledger_webhook_delivery_attempts_total\\{type="event",outcome="${outcome}"\\} [1-9]`));
    }
    expect(text).toMatch(/agent_ledger_webhook_delivery_attempt_duration_seconds_bucket\{le="0\.005",outcome="success"\}/);
    expect(text).toMatch(/agent_ledger_webhook_queue_jobs\{queue="webhook-deliveries",state="delayed"\} \d+/);
    expect(text).toMatch(/agent_ledger_webhook_deliveries_completed_total\{type="event",status="succeeded"\} [1-9]/);
  });

  it("sends the exact body and headers, signed over the raw body; tampering, a wrong secret and a stale t fail", async () => {
    const a = agents.find((x) => x.behavior === "ok")!;
    const sub = [...receiver.secrets.entries()].find(([id]) => receiver.forSubscription(id)[0]?.path === "/ok")!;
    const [subscriptionId, secret] = sub;
    const req = await waitFor(() => receiver.forSubscription(subscriptionId)[0]);
    const [row] = await deliveryRows(db.pool, subscriptionId);
    const {
      rows: [event],
    } = await db.pool.query(
      `SELECT id::text, ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category, kind,
              amount_wei::text, token_address, tx_hash, source_block::text, methodology_version, routed_to_address, routed_to_label,
              routed_fingerprint, explorer_url FROM agent_events WHERE id = $1`,
      [row!.event_id],
    );

    expect(req.verified).toBe(true);
    expect(Object.keys(req.body)).toEqual(["type", "id", "delivered_at", "subscription_id", "data"]);
    expect(req.body.type).toBe("svc.event.v1");
    expect(req.body.id).toBe(row!.id);
    expect(req.body.subscription_id).toBe(subscriptionId);
    expect(new Date(req.body.delivered_at as string).toISOString()).toBe(req.body.delivered_at);
    const data = req.body.data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(SPEC_EVENT_FIELDS);
    expect(data).not.toHaveProperty("memo");
    expect(data).toEqual({
      ...event,
      id: Number(event.id),
      ts: (event.ts as Date).toISOString(),
      source_block: Number(event.source_block),
    });
    expect(data.agent_id).toBe(a.id);
    expect(data.amount_wei).toBe("1000000");
    expect(data.counterparty_category).toBeNull();
    expect(data.routed_fingerprint).toBeNull();

    expect(req.headers["svc-delivery"]).toBe(row!.id);
    expect(req.headers["svc-subscription"]).toBe(subscriptionId);
    expect(req.headers["svc-event-id"]).toBe(String(data.id));
    expect(req.headers["user-agent"]).toBe("Svc-Webhooks/1.0");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["svc-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const t = Number(/t=(\d+)/.exec(req.headers["svc-signature"] as string)![1]);
    const at = new Date(t * 1000);
    expect(verifyWebhook(req.rawBody, req.headers, secret, { now: at }).deliveryId).toBe(row!.id);
    const tampered = Buffer.from(req.rawBody.toString().replace('"1000000"', '"9000000"'));
    expect(() => verifyWebhook(tampered, req.headers, secret, { now: at })).toThrow(/does not match/);
    expect(() => verifyWebhook(JSON.stringify(req.body), req.headers, secret, { now: at })).not.toThrow(); // compact JSON happens to be byte-identical…
    expect(() => verifyWebhook(JSON.stringify(req.body, null, 2), req.headers, secret, { now: at })).toThrow(/does not match/); // …re-serialized is not
    expect(() => verifyWebhook(req.rawBody, req.headers, "whsec_wrong", { now: at })).toThrow(/does not match/);
    expect(() => verifyWebhook(req.rawBody, req.headers, secret, { now: new Date(at.getTime() + 301_000) })).toThrow(/more than 300s/);
  });

  it("5 consecutive failures disable the subscription; dispatch stops; resume re-arms and the same Svc-Delivery ids are retried", async () => {
    const a = agents.find((x) => x.behavior === "flaky")!;
    receiver.overrides.set("flaky", (_r, res) => {
      res.writeHead(503);
      res.end();
    });
    const sub = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("flaky"), agentId: a.id });
    receiver.secrets.set(sub.id, sub.secret);
    // Five events → five deliveries failing concurrently: the counter is exact under concurrency.
    await seeder.insert(Array.from({ length: 5 }, (_, i) => ({ from: a.wallet, to: randomAddress(), amount: BigInt(i + 1) })));
    await waitFor(async () => (await subscriptionRow(db.pool, sub.id)).status === "disabled_by_failures", { what: "disabled_by_failures" });
    expect(await subscriptionRow(db.pool, sub.id)).toEqual({
      status: "disabled_by_failures",
      consecutive_failures: 5,
      status_reason: "disabled after 5 consecutive failed deliveries",
    });
    const failed = await deliveryRows(db.pool, sub.id);
    expect(failed.map((d) => [d.status, d.attempts, d.last_http_status])).toEqual(Array(5).fill(["retrying", 1, 503]));

    // While disabled, dispatch skips it.
    await seeder.insert([{ from: a.wallet, to: randomAddress(), amount: 99n }]);
    await worker.dispatcher!.runOnce();
    expect(await deliveryRows(db.pool, sub.id)).toHaveLength(5);

    // Resume (what the API does): the held deliveries go out again with the same delivery ids.
    receiver.overrides.set("flaky", (_r, res) => {
      res.writeHead(204);
      res.end();
    });
    await resumeSubscription(db.pool, sub.id);
    const done = await waitFor(
      async () => {
        const rows = await deliveryRows(db.pool, sub.id);
        return rows.every((d) => d.status === "succeeded") ? rows : null;
      },
      { what: "resumed deliveries succeed" },
    );
    expect(done.map((d) => d.attempts)).toEqual([2, 2, 2, 2, 2]);
    expect(await subscriptionRow(db.pool, sub.id)).toMatchObject({ status: "active", consecutive_failures: 0 });
    for (const d of done) {
      const seen = receiver.forSubscription(sub.id).filter((r) => r.headers["svc-delivery"] === d.id);
      expect(seen).toHaveLength(2); // Svc-Delivery stable across retries
      expect(new Set(seen.map((r) => r.body.id))).toEqual(new Set([d.id]));
      expect(seen[1]!.body.delivered_at).not.toBe(undefined);
    }
  });

  it("410 pauses the subscription: the delivery is dead, the others are held (not sent) until resume", async () => {
    const a = agents.find((x) => x.behavior === "pausing")!;
    let gone = true;
    let inFlight = 0;
    receiver.overrides.set("pausing", (_r, res) => {
      inFlight++;
      if (gone) {
        res.writeHead(410);
        res.end();
        return;
      }
      res.writeHead(200);
      res.end();
    });
    const sub = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("pausing"), agentId: a.id });
    // Worker concurrency 8 and one event per batch so the first answer pauses before the rest go out.
    await seeder.insert([{ from: a.wallet, to: randomAddress(), amount: 1n }]);
    await waitFor(async () => (await subscriptionRow(db.pool, sub.id)).status === "paused", { what: "paused by 410" });
    await seeder.insert([{ from: a.wallet, to: randomAddress(), amount: 2n }]);
    await worker.dispatcher!.runOnce(); // paused: no delivery for the new event
    const rows = await deliveryRows(db.pool, sub.id);
    expect(rows.map((d) => [d.status, d.last_http_status])).toEqual([["dead", 410]]);
    expect(inFlight).toBe(1);

    // A delivery created before the pause but not yet sent is held: make one by hand, due now.
    const {
      rows: [{ id: eventId }],
    } = await db.pool.query("SELECT max(id)::text AS id FROM agent_events WHERE agent_id = $1", [a.id]);
    const {
      rows: [held],
    } = await db.pool.query(
      "INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, next_attempt_at) VALUES (gen_random_uuid(), $1, $2, 'event', 'pending', now()) RETURNING id",
      [sub.id, eventId],
    );
    await db.pool.query("SELECT pg_notify('webhook_deliveries', $1)", [held.id]);
    await worker.requeueDue(new Date(Date.now() + 3_600_000)); // the minute job does not pick held deliveries either
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveryRows(db.pool, sub.id)).find((d) => d.id === held.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(inFlight).toBe(1);

    gone = false;
    await resumeSubscription(db.pool, sub.id);
    await waitFor(async () => (await deliveryRows(db.pool, sub.id)).find((d) => d.id === held.id)?.status === "succeeded", {
      what: "held delivery sent after resume",
    });
    expect(inFlight).toBe(2);
  });

  it("verification pings never touch the subscription: a 410 or 5xx on a ping neither pauses nor counts", async () => {
    const sub = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("gone"), agentId: "agent-verify", consecutiveFailures: 2 });
    const gone = await createVerifyPing(db.pool, sub.id);
    await waitFor(async () => (await deliveryRows(db.pool, sub.id)).find((d) => d.id === gone)?.status === "dead", { what: "ping dead on 410" });
    await db.pool.query("UPDATE webhook_subscriptions SET callback_url = $2 WHERE id = $1", [sub.id, receiver.url("fail")]);
    const failing = await createVerifyPing(db.pool, sub.id);
    await waitFor(async () => (await deliveryRows(db.pool, sub.id)).find((d) => d.id === failing)?.status === "retrying", { what: "ping retrying on 500" });
    expect(await subscriptionRow(db.pool, sub.id)).toMatchObject({ status: "active", consecutive_failures: 2 });
  });
});
