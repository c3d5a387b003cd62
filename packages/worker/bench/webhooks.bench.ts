// `npm run bench:webhooks` — webhook engine throughput and latency on this machine.
//
// 100 active subscriptions (10 agents × 10 subscriptions), a loopback receiver that verifies every
// signature with core verifyWebhook, events written through the indexer's write path (viem-encoded
// Transfer logs → core matchLogs → prepareBatch/writeBatch: rows + rollups + checkpoint + NOTIFY),
// and BENCH_WORKERS worker processes (`node --import tsx packages/worker/src/main.ts`).
//
// Phase 1 (latency): events at BENCH_LATENCY_RATE deliveries/s (default 500) for BENCH_LATENCY_SECONDS;
//   event-to-receiver latency = receiver arrival − the indexer transaction's COMMIT returning.
// Phase 2 (throughput): events offered faster than the engine can deliver (BENCH_OFFER deliveries/s)
//   for BENCH_SECONDS; sustained rate = deliveries received per second in the steady window.
//
// Before phase 1: each worker's own "webhook worker ready" line (its dispatch cursor exists: a first-ever cursor
// starts "from now on", so an event written earlier would never be delivered), then one warm-up event whose 10
// deliveries must arrive. Every wait has a limit and names what it waited for when it gives up (the run then fails);
// the workers are stopped on normal exit, on error and on SIGINT/SIGTERM (bench/benchWorkers.ts).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { generateToken, hashToken, matchLogs, sealSecret, verifyWebhook, type MatchContext, type RawLog } from "@agent-ledger/core";
import { createPgPool, resetDatabase } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import { Redis } from "ioredis";
import { encodeAbiParameters, encodeEventTopics, parseAbiItem, type Address } from "viem";
import {
  BENCH_METHODOLOGY_VERSION,
  WORKER_READY_MSG,
  spawnBenchWorker,
  stopChildren,
  stopChildrenOnExit,
  waitUntil,
  type LoggedChild,
} from "./benchWorkers.ts";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BENCH_DB = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger_webhooks_bench";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const WORKERS = env("BENCH_WORKERS", 1);
const CONCURRENCY = env("BENCH_CONCURRENCY", 64);
const AGENTS = 10;
const SUBS_PER_AGENT = 10; // 100 subscriptions
const LATENCY_RATE = env("BENCH_LATENCY_RATE", 500);
const LATENCY_SECONDS = env("BENCH_LATENCY_SECONDS", 20);
const OFFER = env("BENCH_OFFER", 3_000);
const SECONDS = env("BENCH_SECONDS", 30);
const TICK_MS = 100;
/** How long a worker may take to log its ready line (tsx compiles the sources first; the machine may be loaded). */
const READY_TIMEOUT_MS = env("BENCH_READY_TIMEOUT_S", 120) * 1000;
/** How long the warm-up event's deliveries may take once the workers are ready. */
const WARMUP_TIMEOUT_MS = 30_000;
/** SIGTERM → SIGKILL: at the end (in-flight deliveries finish) and on SIGINT/SIGTERM (stop promptly). */
const STOP_GRACE_MS = 20_000;
const SIGNAL_GRACE_MS = 5_000;
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function loadAverage(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; load average at start: ${loadAverage()}`,
);
console.log(
  `config: ${WORKERS} worker process(es) × concurrency ${CONCURRENCY}, ${AGENTS * SUBS_PER_AGENT} subscriptions, latency phase ${LATENCY_RATE}/s × ${LATENCY_SECONDS}s, throughput phase offered ${OFFER}/s × ${SECONDS}s, methodology ${BENCH_METHODOLOGY_VERSION}`,
);

// ── Cleanup, whatever happens from here on: the worker processes, then this run's Redis keys ─────────────────────
const prefix = `bench-${process.pid}-${randomBytes(3).toString("hex")}`;
const children: LoggedChild[] = [];
async function deleteQueueKeys(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
stopChildrenOnExit(children, { graceMs: SIGNAL_GRACE_MS, cleanup: deleteQueueKeys });

// ── Database: fresh schema, an owner, 100 active subscriptions ─────────────────────────────────────
await resetDatabase(BENCH_DB);
const pool = createPgPool(BENCH_DB, { max: 4, applicationName: "webhooks-bench" });
const masterKey = randomBytes(32);
const {
  rows: [owner],
} = await pool.query(
  "INSERT INTO wallet_users (id, credential_id, cose_public_key, public_key_hex, managed_address) VALUES (gen_random_uuid(), 'bench', '\\x00', '0x04', $1) RETURNING id",
  [`0x${randomBytes(20).toString("hex")}`],
);
const agents = Array.from({ length: AGENTS }, (_, i) => ({ id: `bench-agent-${i}`, wallet: `0x${randomBytes(20).toString("hex")}` }));
const secrets = new Map<string, string>();

// ── Receiver: verifies every signature from the raw body, records arrival per delivery ─────────────
const arrivals = new Map<string, { at: number; eventId: string }>();
let received = 0,
  verifyFailures = 0,
  duplicates = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = nowMs();
    const raw = Buffer.concat(chunks);
    const sub = req.headers["svc-subscription"] as string;
    try {
      const v = verifyWebhook(raw, req.headers, secrets.get(sub) ?? "", { toleranceSeconds: 300 });
      received++;
      if (arrivals.has(v.deliveryId!)) duplicates++;
      else arrivals.set(v.deliveryId!, { at, eventId: v.eventId! });
      res.writeHead(200);
      res.end();
    } catch {
      verifyFailures++;
      res.writeHead(400);
      res.end();
    }
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

for (const a of agents) {
  for (let k = 0; k < SUBS_PER_AGENT; k++) {
    const id = `whs_${randomBytes(9).toString("base64url")}`;
    const secret = generateToken("whsec_");
    secrets.set(id, secret);
    await pool.query(
      `INSERT INTO webhook_subscriptions (id, owner_user_id, status, callback_url, label, filter_agent_id, signing_secret_ciphertext, verify_token_hash,
         verify_token_ciphertext, verify_token_expires_at, verified_at)
       VALUES ($1, $2, 'active', $3, 'bench', $4, $5, $6, $7, now() + interval '1 day', now())`,
      [id, owner.id, receiverUrl, a.id, sealSecret(secret, masterKey, id), hashToken("x"), sealSecret("x", masterKey, id)],
    );
  }
}

// ── Events through the indexer's write path ────────────────────────────────────────────────────────
const transfer = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 amount)");
const context: MatchContext = {
  wallets: new Map(agents.map((a) => [a.wallet, { id: a.id, label: a.id, category: "agent", trackFees: false }])),
  addressLabels: new Map(),
  fingerprintLabels: new Map(),
  settlementContracts: new Set(),
  explorerBaseUrl: "https://explore.test",
};
const commitAt = new Map<string, number>();
const writer = await pool.connect();
let block = 0n;
let eventsWritten = 0;
async function writeEvents(n: number): Promise<void> {
  const previous = block;
  block++;
  const txHash = `0x${randomBytes(32).toString("hex")}`;
  const logs: RawLog[] = Array.from({ length: n }, (_, i) => {
    const a = agents[(eventsWritten + i) % AGENTS]!;
    return {
      blockNumber: block,
      blockHash: `0x${randomBytes(32).toString("hex")}`,
      blockTimestamp: Math.floor(Date.now() / 1000),
      txHash,
      txIndex: 0,
      logIndex: i,
      address: "0x20c0000000000000000000000000000000000000",
      topics: encodeEventTopics({
        abi: [transfer],
        eventName: "Transfer",
        args: { from: a.wallet as Address, to: `0x${"0".repeat(39)}1` as Address },
      }) as string[],
      data: encodeAbiParameters([{ type: "uint256" }], [BigInt(1_000 + i)]),
    };
  });
  const rows = matchLogs(logs, context, BENCH_METHODOLOGY_VERSION);
  const r = await writeBatch(writer, {
    streamId: "bench",
    chainId: 31337,
    startBlock: 1n,
    previousBlock: previous,
    toBlock: block,
    toBlockHash: null,
    prepared: prepareBatch(logs, rows),
  });
  const at = nowMs();
  if (r.firstEventId !== null) for (let id = r.firstEventId; id <= r.lastEventId!; id++) commitAt.set(id.toString(), at);
  eventsWritten += n;
}

/** Writes events every TICK_MS so that `deliveriesPerSecond` deliveries are due per second. */
async function offer(deliveriesPerSecond: number, seconds: number): Promise<{ events: number }> {
  const eventsPerSecond = deliveriesPerSecond / SUBS_PER_AGENT;
  const start = performance.now();
  let written = 0;
  for (let tick = 1; performance.now() - start < seconds * 1000; tick++) {
    const due = Math.floor((eventsPerSecond * tick * TICK_MS) / 1000) - written;
    if (due > 0) {
      await writeEvents(due);
      written += due;
    }
    const wait = start + tick * TICK_MS - performance.now();
    if (wait > 0) await sleep(wait);
  }
  return { events: written };
}

// ── Workers: started, then each one's own ready line before any event is written ────────────────────────────────
const redisInfo = new Redis(REDIS_URL); // CPU accounting (below)
const startedAt = performance.now();
for (let i = 0; i < WORKERS; i++) {
  children.push(
    spawnBenchWorker({
      name: `worker ${i + 1}`,
      repoRoot,
      databaseUrl: BENCH_DB,
      redisUrl: REDIS_URL,
      prefix,
      masterKey: masterKey.toString("base64"),
      concurrency: CONCURRENCY,
      nodeArgs: process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : [],
    }),
  );
}
let warm = 0;
try {
  await Promise.all(children.map((c) => c.waitForLog(WORKER_READY_MSG, READY_TIMEOUT_MS)));
  const {
    rows: [cursor],
  } = await pool.query("SELECT last_event_id::text AS id FROM event_cursors WHERE id = 'webhook-dispatch'");
  if (!cursor) throw new Error("the workers logged ready but there is no dispatch cursor (event_cursors 'webhook-dispatch')");
  console.log(`workers ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s (dispatch cursor at ${cursor.id})`);
  // Warm-up: one event, one delivery per subscription of its agent.
  await writeEvents(1);
  await waitUntil(`the warm-up event's ${SUBS_PER_AGENT} deliveries at the receiver`, WARMUP_TIMEOUT_MS, () => received >= SUBS_PER_AGENT, {
    detail: async () => {
      const {
        rows: [state],
      } = await pool.query(
        `SELECT (SELECT last_event_id::text FROM event_cursors WHERE id = 'webhook-dispatch') AS cursor, (SELECT max(id)::text FROM agent_events) AS max_event,
                (SELECT string_agg(status || ' ' || n, ', ') FROM (SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status) s) AS deliveries`,
      );
      return `${received} received, ${verifyFailures} signature failures; dispatch cursor ${state.cursor}, newest event ${state.max_event}, deliveries: ${state.deliveries ?? "none"}`;
    },
  });
  await sleep(500);
  warm = arrivals.size;
} catch (error) {
  await shutDown();
  throw error;
}

/** Stops the workers (in-flight deliveries finish, ≤ STOP_GRACE_MS), closes the receiver and connections, deletes this run's Redis keys. */
async function shutDown(): Promise<void> {
  const killed = await stopChildren(children, STOP_GRACE_MS);
  if (killed.length) console.error(`killed (no exit within ${STOP_GRACE_MS / 1000} s of SIGTERM): ${killed.join(", ")}`);
  writer.release();
  redisInfo.disconnect();
  await pool.end();
  receiver.closeAllConnections();
  receiver.close();
  await deleteQueueKeys();
}

function latencies(from: number): number[] {
  const out: number[] = [];
  for (const { at, eventId } of [...arrivals.values()].slice(from)) {
    const c = commitAt.get(eventId);
    if (c !== undefined) out.push(at - c);
  }
  return out.sort((a, b) => a - b);
}

/** Waits (≤ timeoutMs) until `expected` deliveries in all have arrived; says so when it gives up (the figures then show the shortfall). */
async function drain(what: string, expected: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  const before = arrivals.size;
  while (arrivals.size < expected && performance.now() - start < timeoutMs) await sleep(50);
  if (arrivals.size < expected) {
    console.log(
      `  gave up after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}: ${expected - arrivals.size} of them had not arrived (${arrivals.size - before} arrived while waiting)`,
    );
  }
  return arrivals.size;
}

// CPU accounting per component, so the result can be read independently of what else runs on the machine.
async function cpuSnapshot(): Promise<Record<string, number>> {
  const info = await redisInfo.info("cpu");
  const redisCpu = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0) + Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0);
  const { rows } = await pool.query(
    "SELECT pid, application_name, backend_type FROM pg_stat_activity WHERE datname = current_database() OR backend_type <> 'client backend'",
  );
  const bench = process.cpuUsage();
  const pgBy = (pred: (r: { application_name: string; backend_type: string }) => boolean) =>
    rows.filter(pred).reduce((n, r) => n + processCpu(r.pid as number), 0);
  return {
    worker: children.reduce((n, c) => n + processCpu(c.child.pid!), 0),
    "postgres (worker sessions)": pgBy((r) => r.application_name.startsWith("agent-ledger-worker")),
    "postgres (event writer)": pgBy((r) => r.application_name === "webhooks-bench"),
    "postgres (background: wal writer, checkpointer, autovacuum…)": pgBy((r) => r.backend_type !== "client backend"),
    redis: redisCpu,
    "bench (receiver + event writer)": (bench.user + bench.system) / 1e6,
  };
}

try {
  // Phase 1: latency at a fixed rate.
  const p1Start = arrivals.size;
  const p1 = await offer(LATENCY_RATE, LATENCY_SECONDS);
  await drain("the latency phase's deliveries", warm + p1.events * SUBS_PER_AGENT, 30_000);
  const lat = latencies(p1Start);
  console.log(`\nlatency phase: ${p1.events} events → ${lat.length} deliveries at ${LATENCY_RATE}/s offered; load average ${loadAverage()}`);
  console.log(
    `  event-to-receiver latency: p50 ${percentile(lat, 50).toFixed(1)} ms, p95 ${percentile(lat, 95).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms, max ${lat.at(-1)?.toFixed(1)} ms (target p99 ≤ 250 ms)`,
  );
  // Where the time goes (database clock): event row written → delivery row created (dispatch) → attempt claimed (queue).
  const {
    rows: [stages],
  } = await pool.query(
    `SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - e.created_at) * 1000) AS dispatch,
            percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM d.last_attempt_at - d.created_at) * 1000) AS queue,
            percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY d.last_response_ms) AS post
       FROM webhook_deliveries d JOIN agent_events e ON e.id = d.event_id WHERE d.status = 'succeeded'`,
  );
  const fmt = (a: number[]) => `p50 ${a[0]!.toFixed(1)} / p99 ${a[1]!.toFixed(1)} ms`;
  console.log(`  stages: event row → delivery row ${fmt(stages.dispatch)}; delivery row → claimed ${fmt(stages.queue)}; POST ${fmt(stages.post)}`);

  // Phase 2: sustained throughput with more offered than the engine can take.
  await sleep(1_000);
  const p2Start = arrivals.size;
  const p2t0 = nowMs();
  const samples: { t: number; n: number }[] = [];
  const sampler = setInterval(() => samples.push({ t: nowMs(), n: arrivals.size }), 1_000);
  const cpuBefore = await cpuSnapshot();
  const p2 = await offer(OFFER, SECONDS);
  const offeredEnd = nowMs();
  const expected = p2Start + p2.events * SUBS_PER_AGENT;
  await drain("the throughput phase's backlog to drain", expected, 180_000);
  clearInterval(sampler);
  const drainedAt = nowMs();
  const cpuAfter = await cpuSnapshot();
  const loadEnd = loadAverage();
  // Steady window: from 5 s after the start to the end of the offer (a backlog exists throughout if offered > capacity).
  const inWindow = samples.filter((s) => s.t >= p2t0 + 5_000 && s.t <= offeredEnd);
  const steady = inWindow.length >= 2 ? (inWindow.at(-1)!.n - inWindow[0]!.n) / ((inWindow.at(-1)!.t - inWindow[0]!.t) / 1000) : NaN;
  const total = arrivals.size - p2Start;
  const perSecond = samples.slice(1).map((s, i) => s.n - samples[i]!.n);
  console.log(
    `\nthroughput phase: offered ${OFFER}/s for ${SECONDS}s (${p2.events} events → ${p2.events * SUBS_PER_AGENT} deliveries); load average ${loadEnd}`,
  );
  console.log(`  sustained (steady window while backlogged): ${steady.toFixed(0)} deliveries/s (target ≥ 2,000)`);
  console.log(
    `  overall: ${total} deliveries in ${((drainedAt - p2t0) / 1000).toFixed(1)} s = ${(total / ((drainedAt - p2t0) / 1000)).toFixed(0)} deliveries/s; per-second samples: ${perSecond.join(" ")}`,
  );
  const cpuPer = Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, ((cpuAfter[k]! - cpuBefore[k]!) * 1000) / total]));
  const cpuTotal = Object.values(cpuPer).reduce((a, b) => a + b, 0);
  console.log(
    `  CPU per delivery: ${Object.entries(cpuPer)
      .map(([k, v]) => `${k} ${v.toFixed(3)} ms`)
      .join(", ")}; total ${cpuTotal.toFixed(3)} ms`,
  );
  console.log(`  → on ${os.cpus().length} otherwise idle cores that is a ceiling of ~${((os.cpus().length * 1000) / cpuTotal).toFixed(0)} deliveries/s`);
  const {
    rows: [db],
  } = await pool.query("SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS ok, count(*)::int AS all FROM webhook_deliveries");
  console.log(
    `\nchecks: received ${received} POSTs, ${arrivals.size} distinct Svc-Delivery, ${duplicates} duplicates, ${verifyFailures} signature failures; database: ${db.ok}/${db.all} succeeded`,
  );
} finally {
  await shutDown();
}
