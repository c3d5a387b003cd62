import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { DEV_PRIVATE_KEYS, PATH_USD, createDevnetClient, sendBulkTransfers, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { parseAbiItem } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventSource, type SseCollector } from "../packages/api/test/support/feedClients.ts";
import { createTestUser } from "../packages/api/test/support/walletFixtures.ts";
import { createOwner, createSubscription, deletePrefixKeys, masterKey, startReceiver, type Receiver } from "../packages/worker/test/helpers.ts";
import { loadRegistry } from "../packages/indexer/test/helpers.ts";
import { spawnService, until, type ServiceProcess } from "./support/spawnService.ts";

// The production topology of docs/operations.md on loopback, every service a real process from its entry point:
// 2 API processes, 2 workers and 2 indexers on one PostgreSQL database and one Redis, against a devnet with traffic
// flowing the whole time. The indexer leader is SIGKILLed mid-stream: the standby must take over within 10 s and the
// ledger must hold every payment on the chain exactly once (checked against the chain's own Transfer logs, decoded
// here with viem, not with our matcher). Feed clients on both APIs see every row; each matching row reaches the
// loopback webhook receiver exactly once across the two workers; the wallet's rate limit and idempotency keys hold
// across both APIs.

const senders = DEV_PRIVATE_KEYS.slice(1, 3);
const senderAddrs = senders.map((k) => privateKeyToAccount(k).address.toLowerCase());
const recipients = DEV_PRIVATE_KEYS.slice(5, 7).map((k) => privateKeyToAccount(k).address.toLowerCase() as `0x${string}`);
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 amount)");
const VERSION = "v0.1";
const START_PER_MINUTE = 6;

/** A JSON request to an API process as a browser page or the CLI sends it (Origin set on writes). */
async function call(base: string, method: string, path: string, options: { body?: unknown; bearer?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { origin: base, "content-type": "application/json", ...options.headers };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const res = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("scale-out on loopback: 2 APIs, 2 workers, 2 indexers, one PostgreSQL and one Redis", () => {
  let anvil: AnvilInstance;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: pg.Client;
  let receiver: Receiver;
  let registryFile: string;
  const procs: ServiceProcess[] = [];
  let traffic = false;
  let trafficDone: Promise<void> = Promise.resolve();
  const feeds: SseCollector[] = [];
  const queuePrefix = `scale-${process.pid}-${randomBytes(4).toString("hex")}`;
  const rateLimitPrefix = `test:scale:${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    [anvil, db, receiver] = await Promise.all([startAnvil(), createTestDatabase(), startReceiver()]);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const registry = {
      registry_version: 1,
      network: "devnet",
      entities: [
        ...senderAddrs.map((a, i) => ({ id: `sender-${i}`, label: `Sender ${i}`, category: "agent", wallets: [a] })),
        ...recipients.map((a, i) => ({ id: `recipient-${i}-mpp`, label: `Recipient ${i}`, category: "service", wallets: [a] })),
      ],
    };
    registryFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "ledger-scale-")), "registry.json");
    await fs.writeFile(registryFile, JSON.stringify(registry));
    await loadRegistry(db.url, registry); // the subscriptions name its entities before an indexer starts
  }, 60_000);

  afterAll(async () => {
    traffic = false;
    await trafficDone;
    for (const f of feeds) f.close();
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    await Promise.allSettled(procs.map((p) => p.exited));
    await receiver?.close();
    await deletePrefixKeys(queuePrefix);
    await deletePrefixKeys(rateLimitPrefix);
    await sql?.end();
    await Promise.allSettled([anvil?.stop(), db?.drop()]);
  });

  it("the standby indexer takes over within 10 s, nothing is missed or doubled, feeds and webhooks see every row once, limits and keys hold across APIs", async () => {
    const t0 = Date.now();
    const common = { DATABASE_URL: db.url, REDIS_URL: "redis://127.0.0.1:6379", METHODOLOGY_VERSION: VERSION, LOG_LEVEL: "info", NODE_ENV: "test" };
    const secrets = masterKey.toString("hex");

    // Subscriptions before any row exists: one on an agent (its payments sent), one on a service (payments received).
    const owner = await createOwner(sql as unknown as pg.Pool);
    const subs = [
      { agentId: "sender-0", ...(await createSubscription(sql as unknown as pg.Pool, { owner, callbackUrl: receiver.url("ok"), agentId: "sender-0" })) },
      {
        agentId: "recipient-1-mpp",
        ...(await createSubscription(sql as unknown as pg.Pool, { owner, callbackUrl: receiver.url("ok"), agentId: "recipient-1-mpp" })),
      },
    ];
    for (const s of subs) receiver.secrets.set(s.id, s.secret);

    // 2 workers, 2 APIs: start together (the slow part on 2 cores is tsx loading the sources).
    const workers = [0, 1].map((i) =>
      spawnService(`worker-${i}`, "packages/worker/src/main.ts", {
        ...common,
        QUEUE_PREFIX: queuePrefix,
        SECRETS_MASTER_KEY: secrets,
        WORKER_METRICS_PORT: "0",
        WORKER_CONCURRENCY: "8",
        DISPATCH_POLL_MS: "200",
        DELIVERY_TIMEOUT_MS: "3000",
        DELIVERY_LEASE_MS: "5000",
        WORKER_SHUTDOWN_GRACE_MS: "1000",
      }),
    );
    const apis = [0, 1].map((i) =>
      spawnService(`api-${i}`, "packages/api/src/main.ts", {
        ...common,
        API_PORT: "0",
        NEXT_PUBLIC_LIVE_FEED: "1",
        FEED_POLL_MS: "500",
        FEED_HEARTBEAT_MS: "5000",
        SECRETS_MASTER_KEY: secrets,
        TEMPO_RPC_URL: anvil.url,
        SPONSOR_PRIVATE_KEY: DEV_PRIVATE_KEYS[3],
        WALLET_SWEEP_INTERVAL_MS: "0",
        RATE_LIMIT_PREFIX: rateLimitPrefix,
        WALLET_START_PER_MINUTE: String(START_PER_MINUTE),
      }),
    );
    procs.push(...workers, ...apis);
    const indexerEnv = {
      ...common,
      LOG_LEVEL: "debug",
      TEMPO_RPC_URL: anvil.url,
      REGISTRY_FILE: registryFile,
      EXPLORER_BASE_URL: "https://explore.test",
      CHUNK_INITIAL_BLOCKS: "2",
      CHUNK_MAX_BLOCKS: "4",
      POLL_INTERVAL_MS: "100",
      INDEXER_METRICS_PORT: "0",
    };

    // Traffic the whole time: batches of transfers from two agents to two services (plain transfers: one Transfer log each).
    traffic = true;
    let sent = 0;
    let trafficError: unknown = null;
    trafficDone = (async () => {
      while (traffic) {
        await sendBulkTransfers({ rpcUrl: anvil.url, count: 4, senders, recipients, withMemo: false, batchSize: 4 });
        sent += 4;
      }
    })().catch((error: unknown) => void (trafficError = error));

    const ready = (p: ServiceProcess, msg: string) =>
      until(
        () => {
          if (p.child.exitCode !== null) throw new Error(`${p.name} exited ${p.child.exitCode}: ${p.stderr.join("").slice(-2000)}`);
          return p.line(msg);
        },
        420_000,
        `${p.name}: ${msg}`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${p.name} said: ${JSON.stringify(p.lines.slice(-5))} ${p.stderr.join("").slice(-2000)}`);
      });
    const apiUrls = await Promise.all(apis.map(async (a) => (await ready(a, "api listening (GraphQL at /graphql, REST under /api)")).url as string));
    // Feed clients on both APIs from the start of the ledger (Last-Event-ID 0), before the indexer writes.
    for (const url of apiUrls) feeds.push(openEventSource(`${url}/api/feed`, "0"));
    await until(() => feeds.every((f) => f.ready.length > 0), 30_000, "both feed clients ready");
    // A worker is ready once its dispatch cursor exists; a first-ever cursor starts at the ledger's end ("from now
    // on", docs/webhooks.md), so the indexer starts writing only after that, as the subscriptions predate every row.
    const workerPorts = await Promise.all(workers.map(async (w) => (await ready(w, "webhook worker ready")).metricsPort as number));
    const leader = spawnService("indexer-0", "packages/indexer/src/main.ts", indexerEnv);
    procs.push(leader);
    await ready(leader, "indexer lock acquired");
    const standby = spawnService("indexer-1", "packages/indexer/src/main.ts", indexerEnv);
    procs.push(standby);
    console.log(`processes up after ${Date.now() - t0} ms`);

    // ── Rate limits and idempotency keys across both APIs, while the chain and the indexer run ──────────────────
    // device/start: one budget per client address in Redis, shared by both processes.
    const starts = [];
    for (let i = 0; i < START_PER_MINUTE; i++)
      starts.push(await call(apiUrls[i % 2]!, "POST", "/api/wallet/device/start", { body: { agent_label: `scale ${i}` } }));
    expect(starts.map((r) => r.status)).toEqual(Array(START_PER_MINUTE).fill(200));
    for (const url of apiUrls) {
      const over = await call(url, "POST", "/api/wallet/device/start", { body: { agent_label: "one too many" } });
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe("rate_limited");
    }
    // Idempotency keys are rows in PostgreSQL: a key used on one API answers the same on the other. The amount is over
    // the session's per-call cap, so the first answer is a refusal (no chain needed) and the key remembers it.
    const user = await createTestUser(db.url);
    const key = randomUUID();
    const body = { to: recipients[0], amount_wei: "200000", memo: "scale" };
    const first = await call(apiUrls[0]!, "POST", "/api/wallet/pay", { bearer: user.bearer, body, headers: { "idempotency-key": key } });
    expect(first.status).toBe(403);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const replayed = await call(apiUrls[1]!, "POST", "/api/wallet/pay", { bearer: user.bearer, body, headers: { "idempotency-key": key } });
    expect([replayed.status, replayed.body, replayed.headers.get("idempotent-replayed")]).toEqual([403, first.body, "true"]);
    const reused = await call(apiUrls[1]!, "POST", "/api/wallet/pay", {
      bearer: user.bearer,
      body: { ...body, amount_wei: "200001" },
      headers: { "idempotency-key": key },
    });
    expect([reused.status, reused.body.error.code]).toEqual([409, "idempotency_key_reused"]);
    // One fresh key sent to both APIs at once, three times each: exactly one request claims it.
    const raceKey = randomUUID();
    const race = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(apiUrls[i % 2]!, "POST", "/api/wallet/pay", { bearer: user.bearer, body, headers: { "idempotency-key": raceKey } }),
      ),
    );
    expect(race.filter((r) => r.status === 403 && r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    for (const r of race) expect(r.status === 403 || (r.status === 409 && r.body.error.code === "idempotency_key_in_use")).toBe(true);
    const keys = await sql.query("SELECT key FROM wallet_idempotency_keys WHERE key = ANY($1)", [[key, raceKey]]);
    expect(keys.rowCount).toBe(2);
    expect((await sql.query("SELECT count(*)::int AS n FROM wallet_payments")).rows[0].n).toBe(0);

    console.log(`rate limit and idempotency keys checked after ${Date.now() - t0} ms`);
    // ── Indexer failover: SIGKILL the leader mid-stream ──────────────────────────────────────────────────────────
    await until(() => leader.lines.filter((l) => l.msg === "batch committed").length >= 3, 60_000, "three batches by the leader");
    await ready(standby, "another indexer holds the lock for this stream; waiting");
    leader.child.kill("SIGKILL");
    const killedAt = Date.now();
    await leader.exited;
    await until(() => standby.line("indexer lock acquired"), 30_000, "the standby to take over");
    const tookOverMs = Date.now() - killedAt;
    expect(tookOverMs).toBeLessThan(10_000);

    console.log(`standby took over ${tookOverMs} ms after the SIGKILL`);
    // A little more traffic under the new leader, then stop it and let everything drain.
    const sentAtKill = sent;
    await until(() => sent >= sentAtKill + 8, 30_000, "traffic after the takeover");
    traffic = false;
    await trafficDone;
    expect(trafficError).toBeNull();
    const head = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    await until(
      async () => {
        const r = await sql.query("SELECT last_block::text AS b FROM indexer_checkpoints");
        return r.rows.length === 1 && BigInt(r.rows[0].b) >= head;
      },
      30_000,
      "the new leader to reach the head",
    );

    // ── No row missed or doubled: the ledger against the chain's own Transfer logs ─────────────────────────────
    const chainLogs = await createDevnetClient({ url: anvil.url }).getLogs({ address: PATH_USD, event: transferEvent, fromBlock: 0n, toBlock: head });
    const payments = chainLogs.filter(
      (l) => senderAddrs.includes(l.args.from!.toLowerCase()) && recipients.includes(l.args.to!.toLowerCase() as `0x${string}`),
    );
    expect(payments.length).toBe(sent);
    const expected = payments
      .flatMap((l) => [
        `sender-${senderAddrs.indexOf(l.args.from!.toLowerCase())}|payment_sent|${l.transactionHash}|${l.logIndex}|${l.args.amount}`,
        `recipient-${recipients.indexOf(l.args.to!.toLowerCase() as `0x${string}`)}-mpp|payment_received|${l.transactionHash}|${l.logIndex}|${l.args.amount}`,
      ])
      .sort();
    const { rows } = await sql.query<{ id: string; agent_id: string; kind: string; tx_hash: string; log_index: number; amount_wei: string }>(
      "SELECT id::text, agent_id, kind, tx_hash, log_index, amount_wei::text FROM agent_events ORDER BY agent_events.id",
    );
    expect(rows.map((r) => `${r.agent_id}|${r.kind}|${r.tx_hash}|${r.log_index}|${r.amount_wei}`).sort()).toEqual(expected);
    const ids = rows.map((r) => Number(r.id));

    console.log(`ledger equals the chain's payments (${rows.length} rows) after ${Date.now() - t0} ms`);
    // ── Both feeds: every row, once, in id order ─────────────────────────────────────────────────────────────────
    await until(() => feeds.every((f) => f.rows.length >= ids.length), 20_000, "every row on both feeds");
    for (const f of feeds) expect(f.ids()).toEqual(ids);

    // ── Webhooks: each matching row delivered exactly once across the two workers ───────────────────────────────
    const wanted = new Set(subs.flatMap((s) => rows.filter((r) => r.agent_id === s.agentId).map((r) => `${s.id}|${r.id}`)));
    expect(wanted.size).toBeGreaterThan(0);
    await until(() => receiver.requests.length >= wanted.size, 60_000, `${wanted.size} deliveries`).catch(async (error: Error) => {
      const states = await sql.query("SELECT status, attempts, count(*)::int AS n FROM webhook_deliveries GROUP BY 1, 2 ORDER BY 1, 2");
      throw new Error(
        `${error.message}: ${receiver.requests.length} arrived; delivery rows ${JSON.stringify(states.rows)}; ` +
          workers.map((w) => `${w.name} said: ${JSON.stringify(w.lines.slice(-4))} ${w.stderr.join("").slice(-1500)}`).join("; "),
      );
    });
    await new Promise((r) => setTimeout(r, 300)); // a double send would arrive now
    const got = receiver.requests.map((r) => `${r.headers["svc-subscription"]}|${r.headers["svc-event-id"]}`);
    expect(got.sort()).toEqual([...wanted].sort());
    expect(receiver.requests.every((r) => r.verified === true)).toBe(true);
    // the worker records each outcome after its POST is answered: wait for the rows, then check each went out once
    await until(
      async () => (await sql.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'")).rows[0].n === wanted.size,
      30_000,
      "every delivery recorded succeeded",
    );
    const deliveries = await sql.query("SELECT status, attempts FROM webhook_deliveries");
    expect(deliveries.rowCount).toBe(wanted.size);
    expect(deliveries.rows.every((d) => d.status === "succeeded" && d.attempts === 1)).toBe(true);
    const attempts = await Promise.all(
      workerPorts.map(async (port) => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return text
          .split("\n")
          .filter((l) => l.startsWith("agent_ledger_webhook_delivery_attempts_total{"))
          .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
      }),
    );
    expect(attempts[0]! + attempts[1]!).toBe(wanted.size);

    console.log(
      `scale-out: ${sent} payments, ${rows.length} rows, ${wanted.size} deliveries (worker split ${attempts.join("/")}); ` +
        `standby took over ${tookOverMs} ms after the leader's SIGKILL; ${Date.now() - t0} ms in all`,
    );
  }, 720_000);
});
