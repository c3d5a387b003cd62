// `npm run bench:api` — the read API under load on a 1,000,000-row ledger.
//
// 1. Seeds (or reuses) a dedicated database through the indexer's own write path (bench/seedBenchLedger.ts).
// 2. Starts the app in this process (buildApp on port 0) and load-tests it with autocannon (programmatic API, load
//    generated in a worker thread so it does not share the server's event loop): /api/dashboard?w=all uncached
//    (cache TTL 0: concurrent misses still share one computation — single-flight — so also with 1 connection, on a
//    separate app instance, where it cannot help) and cached, /api/services/{id} (identical reads in flight share one
//    computation — request coalescing, docs/api.md — so the gateway's detail is also measured with 1 connection, every
//    request computed), /api/search, and the equivalent GraphQL queries (same fields as the REST bodies).
// 3. Live feed: 1,000 SSE subscribers on the API as its own process, rows inserted with writeBatch (bench/feedBench.ts).
//    A feed that is not available or in which no inserted row is recognized fails the run (exit code 1).
//
// Every row (seed, feed inserts) is of BENCH_METHODOLOGY_VERSION and every app and API process serves that version
// (the API serves only its configured one; its default, v0.3, is not the ledger's).
//
// Replica mode (`BENCH_API_REPLICA=1 npm run bench:api`, or `npm run bench:api -- --replica`; issue 27): a throwaway
// primary + streaming replica (startReplicaPair from @agent-ledger/db/testing, free ports, stopped at the end, on
// failure and on SIGINT/SIGTERM), the ledger seeded on the primary before the base backup (BENCH_API_ROWS rows, the
// seed time printed). A representative subset of the read cases (dashboard uncached at 10 and 1 connections, gateway
// detail at 1 connection, search by address and by text, GraphQL service detail) runs against (A) an app whose reads
// go to the primary and (B) an app whose public reads are routed to the replica (buildApp's readPools: the primary as
// its pool, the replica as its read pool), alternating A B A B (BENCH_API_REPLICA_ROUNDS, 2);
// per run p50/p99/req/s and the CPU seconds of the primary's and the replica's PostgreSQL (postmaster + children,
// /proc) — the primary's CPU while the replica serves the reads — and of this process (the app together with
// autocannon's worker thread: an upper bound of the app's CPU per request). The cluster on 5432 is not used (it has no
// replication entry in pg_hba.conf).
//
// Env: BENCH_API_ROWS (1,000,000), BENCH_API_DAYS (90), BENCH_API_DURATION_S (10), BENCH_API_WARMUP_S (2),
// BENCH_API_CONNECTIONS (10), BENCH_API_FEED_CLIENTS (1,000), BENCH_API_FEED_BATCHES (20), BENCH_API_ONLY (comma list
// of case names to run), BENCH_API_RESEED=1, BENCH_API_DATABASE_URL (default …/agent_ledger_bench_api, suffixed with
// the row count when it is not 1,000,000), BENCH_API_JSON (write the results there), BENCH_API_REPLICA=1,
// BENCH_API_REPLICA_ROUNDS (2).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPgPool } from "@agent-ledger/db";
import { startReplicaPair } from "@agent-ledger/db/testing";
import autocannon from "autocannon";
import pg from "pg";
import { pino, destination } from "pino";
import { buildApp, type App } from "../src/buildApp.ts";
import { runFeedBench, type FeedBenchResult } from "./feedBench.ts";
import { readPostgresCpuSeconds } from "./readPostgresCpuSeconds.ts";
import { BENCH_METHODOLOGY_VERSION, type SeedInfo, seedBenchLedger } from "./seedBenchLedger.ts";

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const ROWS = num("BENCH_API_ROWS", 1_000_000);
const DAYS = num("BENCH_API_DAYS", 90);
const AGENTS = 200;
const DURATION = num("BENCH_API_DURATION_S", 10);
const WARMUP = num("BENCH_API_WARMUP_S", 2);
const CONNECTIONS = num("BENCH_API_CONNECTIONS", 10);
const FEED_CLIENTS = num("BENCH_API_FEED_CLIENTS", 1_000);
const FEED_BATCHES = num("BENCH_API_FEED_BATCHES", 20);
const ONLY = process.env.BENCH_API_ONLY ? new Set(process.env.BENCH_API_ONLY.split(",").map((s) => s.trim())) : null;
// The REST-equivalent service query (detail + 50 events + 100 providers, every field) costs ~7,600 by graphql-armor's
// measure, above the default GRAPHQL_MAX_COST of 5,000 (the bench apps raise it; printed below).
const REPLICA = process.env.BENCH_API_REPLICA === "1" || process.argv.includes("--replica");
const ROUNDS = num("BENCH_API_REPLICA_ROUNDS", 2);
const GRAPHQL_MAX_COST = num("BENCH_API_GRAPHQL_MAX_COST", 10_000);
const DATABASE_URL = process.env.BENCH_API_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/agent_ledger_bench_api${ROWS === 1_000_000 ? "" : `_${ROWS}`}`;

const EVENT = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei
  tokenAddress txHash sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl`;
const TOP = "id label category txCount amountSumWei";
/** The GraphQL equivalents of the REST bodies: the same fields. */
const GQL = {
  dashboard: `query Dashboard($w: String!) { dashboard(window: $w) { windowHours txCount agentsActive amountSumWei providersDetected
    topServices { ${TOP} } topAgents { ${TOP} } topProviders { key pattern address fingerprint label txCount amountSumWei } recentEvents { ${EVENT} } } }`,
  service: `query Service($id: ID!) { service(id: $id) { id label category kind active wallets
    totals { txCount amountSumWei feeCount feeSumWei } trend { day txCount amountSumWei }
    recentEvents(first: 50) { items { ${EVENT} } nextCursor }
    providers(first: 100) { items { key pattern address fingerprint label txCount amountSumWei firstSeenAt lastSeenAt } nextCursor } } }`,
  search: `query Search($q: String!) { search(q: $q) { q events(first: 20) { items { ${EVENT} } nextCursor }
    entities(first: 20) { items { id label category kind wallets } nextCursor } addresses(first: 20) { items { address label category source } nextCursor } } }`,
};

interface Case {
  name: string;
  app: "uncached" | "uncachedSolo" | "cached";
  path: string;
  connections: number;
  graphql?: { query: string; variables: Record<string, unknown> };
}

interface Measured {
  name: string;
  connections: number;
  p50: number;
  p99: number;
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  loadAvg: string;
}

const loadAvg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
const log = (line: string) => console.log(line);

async function fire(url: string, c: Case, seconds: number) {
  const opts = {
    url: url + c.path,
    connections: c.connections,
    duration: seconds,
    workers: 1,
    ...(c.graphql
      ? { method: "POST" as const, headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(c.graphql) }
      : {}),
  };
  return autocannon(opts as autocannon.Options);
}

/** One request first: the REST and GraphQL answers must be errors-free (GraphQL errors come with status 200). */
async function checkOnce(url: string, c: Case): Promise<number> {
  const res = await fetch(url + c.path, c.graphql ? { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(c.graphql) } : {});
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${c.name}: HTTP ${res.status} ${text.slice(0, 300)}`);
  if (c.graphql && JSON.parse(text).errors) throw new Error(`${c.name}: GraphQL errors ${text.slice(0, 500)}`);
  return Buffer.byteLength(text);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")).join("\n");
}

const meets = (ok: boolean) => (ok ? "met" : "NOT met");

interface ReplicaRun extends Measured {
  target: "primary" | "replica";
  round: number;
  /** CPU seconds of each PostgreSQL server (postmaster + children) during the measured seconds. */
  primaryCpuS: number;
  replicaCpuS: number;
  /** This process: the app and autocannon's worker thread (the load generator) together. */
  nodeCpuS: number;
}

/** The replica mode: the same reads against the primary and the replica of a throwaway pair, A B A B (header). */
async function replicaMode() {
  const seedStarted = performance.now();
  let seed: SeedInfo | undefined;
  // SIGINT/SIGTERM end the process through exit(), whose handler (startReplicaPair) stops both servers and removes
  // their folder, also while the seed is still running; the normal and the failing path stop the pair in `finally`.
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the primary and the replica`);
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const pair = await startReplicaPair({
    database: "agent_ledger_bench_api",
    // As the machine's cluster (BENCHMARKS.md, The machine): stock settings, autovacuum off; startReplicaPair adds
    // fsync=off and full_page_writes=off (the seed's speed only: the reads do not write).
    settings: { autovacuum: "off" },
    prepare: async (url) => {
      seed = await seedBenchLedger({ databaseUrl: url, rows: ROWS, days: DAYS, agents: AGENTS, log });
    },
  });
  const pairSeconds = (performance.now() - seedStarted) / 1000;
  const pools: pg.Pool[] = [];
  const apps: App[] = [];
  try {
    if (!seed) throw new Error("the seed did not run");
    await pair.waitForReplay();
    const primaryDir = path.join(pair.dir, "primary");
    const replicaDir = path.join(pair.dir, "replica");
    const info = new pg.Client({ connectionString: pair.replicaUrl });
    await info.connect();
    const {
      rows: [size],
    } = await info.query(
      `SELECT (SELECT count(*) FROM agent_events)::int AS rows, pg_size_pretty(pg_database_size(current_database())) AS size,
              pg_is_in_recovery() AS recovery, current_setting('shared_buffers') AS shared_buffers`,
    );
    await info.end();
    if (size.recovery !== true) throw new Error("the replica is not in recovery");
    console.log(
      `replica pair: ${size.rows.toLocaleString("en-US")} agent_events (${seed.rawLogs.toLocaleString("en-US")} raw logs), database ${size.size}, shared_buffers ${size.shared_buffers}; ` +
        `seeded in ${seed.seedSeconds} s on the throwaway primary, pair up (initdb + seed + base backup + replica start) in ${pairSeconds.toFixed(1)} s`,
    );

    const quiet = pino({ level: "info" }, destination({ dest: "/dev/null", sync: false }));
    const primaryPool = createPgPool(pair.primaryUrl, { max: 10, applicationName: "bench-api-primary" });
    const replicaPool = createPgPool(pair.replicaUrl, { max: 10, applicationName: "bench-api-replica" });
    pools.push(primaryPool, replicaPool);
    const common = { log: quiet, methodologyVersion: BENCH_METHODOLOGY_VERSION, dashboardCacheTtlMs: 0, graphqlLimits: { maxCost: GRAPHQL_MAX_COST } };
    // (A) every read on the primary. (B) the product's routing (AppDeps.readPools, docs/operations.md "Read replicas"):
    // the primary as `pool`, the replica as its read pool — public reads go to the replica while it is within the lag
    // bound, and the routing's own probes (checkpoint, WAL position, every second) run on both servers.
    const targets = [
      { target: "primary" as const, app: buildApp({ pool: primaryPool, ...common }) },
      { target: "replica" as const, app: buildApp({ pool: primaryPool, readPools: [{ name: "replica", pool: replicaPool }], ...common }) },
    ];
    apps.push(...targets.map((t) => t.app));
    const urls = await Promise.all(targets.map((t) => t.app.start(0)));

    const subset: Case[] = [
      { name: "REST dashboard w=all uncached", app: "uncached", path: "/api/dashboard?w=all", connections: CONNECTIONS },
      { name: "REST dashboard w=all uncached, 1 conn", app: "uncached", path: "/api/dashboard?w=all", connections: 1 },
      { name: "REST service tempo-gateway-mpp, 1 conn", app: "uncached", path: `/api/services/${seed.gatewayId}`, connections: 1 },
      { name: "REST search address", app: "uncached", path: `/api/search?q=${seed.busyServiceWallet}`, connections: CONNECTIONS },
      { name: "REST search text", app: "uncached", path: `/api/search?q=${seed.textQuery}`, connections: CONNECTIONS },
      {
        name: "GraphQL service tempo-gateway-mpp",
        app: "uncached",
        path: "/graphql",
        connections: CONNECTIONS,
        graphql: { query: GQL.service, variables: { id: seed.gatewayId } },
      },
    ];
    const cases = subset.filter((c) => !ONLY || [...ONLY].some((o) => c.name.includes(o)));

    const cpu = () => {
      const own = process.cpuUsage();
      return { primary: readPostgresCpuSeconds(primaryDir), replica: readPostgresCpuSeconds(replicaDir), node: (own.user + own.system) / 1e6 };
    };
    {
      const idle = 5;
      const before = cpu();
      await new Promise((r) => setTimeout(r, idle * 1000));
      const after = cpu();
      console.log(
        `idle (no requests, ${idle} s): primary ${(after.primary - before.primary).toFixed(2)} CPU-s, replica ${(after.replica - before.replica).toFixed(2)} CPU-s`,
      );
    }
    console.log(
      `load: autocannon ${DURATION} s per run after ${WARMUP} s of warm-up, ${ROUNDS} rounds of A (reads on the primary) then B (reads on the replica) per case; CPU over the measured seconds`,
    );
    const runs: ReplicaRun[] = [];
    for (const c of cases) {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [i, t] of targets.entries()) {
          const url = urls[i]!;
          await checkOnce(url, c);
          if (WARMUP > 0) await fire(url, c, WARMUP);
          const before = cpu();
          const r = await fire(url, c, DURATION);
          const after = cpu();
          const run: ReplicaRun = {
            name: c.name,
            target: t.target,
            round,
            connections: c.connections,
            p50: r.latency.p50,
            p99: r.latency.p99,
            rps: Math.round(r.requests.average),
            requests: r.requests.total,
            non2xx: r.non2xx,
            errors: r.errors + r.timeouts,
            loadAvg: loadAvg(),
            primaryCpuS: after.primary - before.primary,
            replicaCpuS: after.replica - before.replica,
            nodeCpuS: after.node - before.node,
          };
          runs.push(run);
          const perReq = (s: number) => ((s * 1000) / Math.max(run.requests, 1)).toFixed(3);
          console.log(
            `  ${c.name.padEnd(40)} ${t.target.padEnd(7)} r${round}  p50 ${String(run.p50).padStart(3)} ms  p99 ${String(run.p99).padStart(4)} ms  ${String(run.rps).padStart(5)} req/s  ` +
              `primary ${run.primaryCpuS.toFixed(2)} CPU-s (${perReq(run.primaryCpuS)} ms/req)  replica ${run.replicaCpuS.toFixed(2)} CPU-s (${perReq(run.replicaCpuS)} ms/req)  node ${perReq(run.nodeCpuS)} ms/req` +
              `${run.non2xx || run.errors ? `  ${run.non2xx} non-2xx, ${run.errors} errors` : ""}  load ${run.loadAvg}`,
          );
        }
      }
    }

    // Summary: per case and target, the mean over the rounds.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
    const rows: string[][] = [
      ["case", "reads on", "p50 ms", "p99 ms", "req/s", "primary ms CPU/req", "replica ms CPU/req", "node ms CPU/req", "primary CPU-s/s"],
    ];
    const summary: Record<string, unknown>[] = [];
    for (const c of cases) {
      for (const { target } of targets) {
        const mine = runs.filter((r) => r.name === c.name && r.target === target);
        const requests = mine.reduce((n, r) => n + r.requests, 0);
        const s = {
          case: c.name,
          target,
          p50: mean(mine.map((r) => r.p50)),
          p99: mean(mine.map((r) => r.p99)),
          rps: mean(mine.map((r) => r.rps)),
          primaryMsPerRequest: (mine.reduce((n, r) => n + r.primaryCpuS, 0) * 1000) / Math.max(requests, 1),
          replicaMsPerRequest: (mine.reduce((n, r) => n + r.replicaCpuS, 0) * 1000) / Math.max(requests, 1),
          nodeMsPerRequest: (mine.reduce((n, r) => n + r.nodeCpuS, 0) * 1000) / Math.max(requests, 1),
          primaryCpuPerSecond: mine.reduce((n, r) => n + r.primaryCpuS, 0) / (DURATION * Math.max(mine.length, 1)),
        };
        summary.push(s);
        rows.push([
          c.name,
          target,
          s.p50.toFixed(1),
          s.p99.toFixed(1),
          s.rps.toFixed(0),
          s.primaryMsPerRequest.toFixed(3),
          s.replicaMsPerRequest.toFixed(3),
          s.nodeMsPerRequest.toFixed(3),
          s.primaryCpuPerSecond.toFixed(3),
        ]);
      }
    }
    console.log(`\nmeans over ${ROUNDS} rounds (${size.rows.toLocaleString("en-US")} rows):\n${table(rows)}`);
    const routing = targets[1]!.app.readRouting?.status();
    const routed = routing?.sources.map((src) => `${src.name} ${src.reads.toLocaleString("en-US")} reads, ${src.fallbacks} fallbacks`).join("; ");
    console.log(`\nB's read routing: ${routed ?? "none"} (current: ${routing?.current ?? "—"})`);
    if (routing && routing.sources.find((src) => src.role === "replica")!.reads === 0) throw new Error("B's routing sent no read to the replica");
    let uptime = "";
    try {
      uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
    } catch {
      uptime = `load average ${loadAvg()}`;
    }
    console.log(`\nuptime at the end: ${uptime}`);
    if (process.env.BENCH_API_JSON)
      writeFileSync(process.env.BENCH_API_JSON, JSON.stringify({ mode: "replica", seed, size, pairSeconds, runs, summary, routing, uptime }, null, 2));
  } finally {
    for (const app of apps) await app.stop().catch(() => undefined);
    for (const pool of pools) await pool.end().catch(() => undefined);
    await pair.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

async function main() {
  const pgInfo = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, "/postgres") });
  await pgInfo.connect();
  const pgVersion = (await pgInfo.query("SHOW server_version")).rows[0].server_version as string;
  await pgInfo.end();
  const cpu = os.cpus();
  console.log(
    `machine: ${cpu.length} × ${cpu[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, node ${process.version}, PostgreSQL ${pgVersion}, ${os.type()} ${os.release()}`,
  );
  console.log(`load average at start: ${loadAvg()}`);
  if (REPLICA) return replicaMode();

  // 1. The ledger.
  const seed = await seedBenchLedger({ databaseUrl: DATABASE_URL, rows: ROWS, days: DAYS, agents: AGENTS, reseed: process.env.BENCH_API_RESEED === "1", log });
  const counts = new pg.Client({ connectionString: DATABASE_URL });
  await counts.connect();
  const {
    rows: [size],
  } = await counts.query(
    `SELECT (SELECT count(*) FROM agent_events)::int AS rows, (SELECT count(*) FROM entities)::int AS entities,
            (SELECT count(*) FROM entity_activity_daily)::int AS daily, (SELECT count(*) FROM entity_activity_hourly)::int AS hourly,
            pg_size_pretty(pg_database_size(current_database())) AS size`,
  );
  await counts.end();
  console.log(
    `ledger: ${size.rows.toLocaleString("en-US")} agent_events (${seed.rawLogs.toLocaleString("en-US")} raw logs, ${seed.txs.toLocaleString("en-US")} txs) from ${seed.firstTs.slice(0, 10)} to ${seed.lastTs.slice(0, 10)}, ` +
      `${size.entities} entities, ${size.daily.toLocaleString("en-US")} daily / ${size.hourly.toLocaleString("en-US")} hourly entity rollup rows, database ${size.size}; ` +
      (seed.reused ? `reused (seeded ${seed.seededAt})` : `seeded in ${seed.seedSeconds} s through prepareBatch + writeBatch`) +
      `; methodology ${BENCH_METHODOLOGY_VERSION} (rows and every app)`,
  );

  // 2. The app, in this process: three instances over their own pools (as main.ts: 10 connections each).
  const quiet = pino({ level: "info" }, destination({ dest: "/dev/null", sync: false })); // real log lines, discarded
  const apps: Record<Case["app"], { app: App; url: string; pool: pg.Pool }> = {} as never;
  for (const [name, ttl] of [
    ["uncached", 0],
    ["uncachedSolo", 0],
    ["cached", 5_000],
  ] as const) {
    const pool = createPgPool(DATABASE_URL, { max: 10, applicationName: `bench-api-${name}` });
    const app = buildApp({
      pool,
      log: quiet,
      methodologyVersion: BENCH_METHODOLOGY_VERSION,
      dashboardCacheTtlMs: ttl,
      graphqlLimits: { maxCost: GRAPHQL_MAX_COST },
    });
    apps[name] = { app, url: await app.start(0), pool };
  }

  const address = seed.busyServiceWallet;
  const allCases: Case[] = [
    { name: "REST dashboard w=all uncached", app: "uncached", path: "/api/dashboard?w=all", connections: CONNECTIONS },
    { name: "REST dashboard w=all uncached, 1 conn", app: "uncachedSolo", path: "/api/dashboard?w=all", connections: 1 },
    { name: "REST dashboard w=all cached", app: "cached", path: "/api/dashboard?w=all", connections: CONNECTIONS },
    { name: "REST service tempo-gateway-mpp", app: "uncached", path: `/api/services/${seed.gatewayId}`, connections: CONNECTIONS },
    { name: `REST service ${seed.busyServiceId}`, app: "uncached", path: `/api/services/${seed.busyServiceId}`, connections: CONNECTIONS },
    // One connection: no other request in flight to share with, so every request is computed.
    { name: "REST service tempo-gateway-mpp, 1 conn", app: "uncachedSolo", path: `/api/services/${seed.gatewayId}`, connections: 1 },
    { name: "REST search address", app: "uncached", path: `/api/search?q=${address}`, connections: CONNECTIONS },
    { name: "REST search text", app: "uncached", path: `/api/search?q=${seed.textQuery}`, connections: CONNECTIONS },
    {
      name: "GraphQL dashboard all uncached",
      app: "uncached",
      path: "/graphql",
      connections: CONNECTIONS,
      graphql: { query: GQL.dashboard, variables: { w: "all" } },
    },
    {
      name: "GraphQL dashboard all uncached, 1 conn",
      app: "uncachedSolo",
      path: "/graphql",
      connections: 1,
      graphql: { query: GQL.dashboard, variables: { w: "all" } },
    },
    {
      name: "GraphQL dashboard all cached",
      app: "cached",
      path: "/graphql",
      connections: CONNECTIONS,
      graphql: { query: GQL.dashboard, variables: { w: "all" } },
    },
    {
      name: "GraphQL service tempo-gateway-mpp",
      app: "uncached",
      path: "/graphql",
      connections: CONNECTIONS,
      graphql: { query: GQL.service, variables: { id: seed.gatewayId } },
    },
    {
      name: `GraphQL service ${seed.busyServiceId}`,
      app: "uncached",
      path: "/graphql",
      connections: CONNECTIONS,
      graphql: { query: GQL.service, variables: { id: seed.busyServiceId } },
    },
    {
      name: "GraphQL service tempo-gateway-mpp, 1 conn",
      app: "uncachedSolo",
      path: "/graphql",
      connections: 1,
      graphql: { query: GQL.service, variables: { id: seed.gatewayId } },
    },
    { name: "GraphQL search address", app: "uncached", path: "/graphql", connections: CONNECTIONS, graphql: { query: GQL.search, variables: { q: address } } },
    {
      name: "GraphQL search text",
      app: "uncached",
      path: "/graphql",
      connections: CONNECTIONS,
      graphql: { query: GQL.search, variables: { q: seed.textQuery } },
    },
  ];
  const cases = allCases.filter((c) => !ONLY || [...ONLY].some((o) => c.name.includes(o)));

  const results: Measured[] = [];
  {
    // Does the product's default cost limit accept the REST-equivalent service query?
    const pool = createPgPool(DATABASE_URL, { max: 2 });
    const app = buildApp({ pool, log: quiet, methodologyVersion: BENCH_METHODOLOGY_VERSION });
    const url = await app.start(0);
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: GQL.service, variables: { id: seed.gatewayId } }),
    });
    const errors = ((await res.json()) as { errors?: { message: string }[] }).errors;
    await app.stop();
    await pool.end();
    console.log(
      `\nGraphQL service query (REST-equivalent fields) under the default limits: ${errors ? `rejected — ${errors[0]!.message}` : "accepted"}; the bench apps run with GRAPHQL_MAX_COST=${GRAPHQL_MAX_COST}`,
    );
  }
  console.log(
    `load: autocannon ${DURATION} s per case after ${WARMUP} s of warm-up, ${CONNECTIONS} connections unless noted, load generated in a worker thread`,
  );
  try {
    for (const c of cases) {
      const { url } = apps[c.app];
      const bytes = await checkOnce(url, c);
      if (WARMUP > 0) await fire(url, c, WARMUP);
      const r = await fire(url, c, DURATION);
      const m: Measured = {
        name: c.name,
        connections: c.connections,
        p50: r.latency.p50,
        p99: r.latency.p99,
        rps: Math.round(r.requests.average),
        requests: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        loadAvg: loadAvg(),
      };
      results.push(m);
      console.log(
        `  ${c.name.padEnd(42)} p50 ${String(m.p50).padStart(4)} ms  p99 ${String(m.p99).padStart(4)} ms  ${String(m.rps).padStart(6)} req/s  (${(bytes / 1024).toFixed(1)} KiB body${m.non2xx || m.errors ? `, ${m.non2xx} non-2xx, ${m.errors} errors` : ""}; load ${m.loadAvg})`,
      );
    }
  } finally {
    for (const { app, pool } of Object.values(apps)) {
      await app.stop();
      await pool.end();
    }
  }

  // 3. The feed.
  let feed: FeedBenchResult | null = null;
  /** Why the feed measured nothing (the run then exits with code 1). */
  let feedFailure: string | null = null;
  if (!ONLY || ONLY.has("feed")) {
    console.log(
      `\nfeed: ${FEED_CLIENTS} SSE subscribers on the API process (main.ts, NEXT_PUBLIC_LIVE_FEED=1, METHODOLOGY_VERSION=${BENCH_METHODOLOGY_VERSION}); ${FEED_BATCHES} writeBatch inserts of 5 payments, 250 ms apart`,
    );
    try {
      feed = await runFeedBench({
        databaseUrl: DATABASE_URL,
        agents: AGENTS,
        clients: FEED_CLIENTS,
        batches: FEED_BATCHES,
        txsPerBatch: 5,
        intervalMs: 250,
        methodologyVersion: BENCH_METHODOLOGY_VERSION,
        log,
      });
    } catch (error) {
      feedFailure = error instanceof Error ? error.message : String(error);
    }
    if (feed && !feed.available) feedFailure = `the feed is not available: ${feed.reason}`;
    if (feedFailure) console.log(`feed: FAILED — ${feedFailure}`);
    else if (feed?.available) {
      console.log(
        `  ${feed.connected}/${feed.clients} connected; ${feed.rowsInserted} rows inserted; ${feed.deliveries.toLocaleString("en-US")}/${feed.expectedDeliveries.toLocaleString("en-US")} deliveries\n` +
          `  event-to-client from the insert call: p50 ${feed.fromInsert.p50} ms, p99 ${feed.fromInsert.p99} ms, max ${feed.fromInsert.max} ms (write transaction p50 ${feed.writeMs.p50} ms)\n` +
          `  event-to-client from the commit:      p50 ${feed.fromCommit.p50} ms, p99 ${feed.fromCommit.p99} ms, max ${feed.fromCommit.max} ms\n` +
          `  per row: commit → first subscriber p50 ${feed.firstClient.p50} ms (max ${feed.firstClient.max}); first → last subscriber p50 ${feed.fanOut.p50} ms (max ${feed.fanOut.max})`,
      );
    }
  }

  // 4. Summary.
  const by = (name: string) => results.find((r) => r.name === name);
  console.log(
    "\n" +
      table([
        ["case", "conns", "p50 ms", "p99 ms", "req/s", "non-2xx", "load avg"],
        ...results.map((r) => [r.name, String(r.connections), String(r.p50), String(r.p99), String(r.rps), String(r.non2xx + r.errors), r.loadAvg]),
      ]),
  );
  const pairs: [string, string][] = [
    ["REST dashboard w=all uncached", "GraphQL dashboard all uncached"],
    ["REST dashboard w=all uncached, 1 conn", "GraphQL dashboard all uncached, 1 conn"],
    ["REST dashboard w=all cached", "GraphQL dashboard all cached"],
    ["REST service tempo-gateway-mpp", "GraphQL service tempo-gateway-mpp"],
    ["REST service tempo-gateway-mpp, 1 conn", "GraphQL service tempo-gateway-mpp, 1 conn"],
    [`REST service ${seed.busyServiceId}`, `GraphQL service ${seed.busyServiceId}`],
    ["REST search address", "GraphQL search address"],
    ["REST search text", "GraphQL search text"],
  ];
  const ratios: { pair: string; p99: number; rps: number }[] = [];
  for (const [rest, gql] of pairs) {
    const a = by(rest),
      b = by(gql);
    if (a && b) ratios.push({ pair: rest.replace(/^REST /, ""), p99: b.p99 / Math.max(a.p99, 1), rps: a.rps / Math.max(b.rps, 1) });
  }
  if (ratios.length) {
    console.log("\nGraphQL / REST (target ≤ 1.5×):");
    console.log(table([["case", "p99 ratio", "throughput ratio"], ...ratios.map((r) => [r.pair, `${r.p99.toFixed(2)}×`, `${r.rps.toFixed(2)}×`])]));
  }
  const verdicts: string[] = [];
  const uncached = by("REST dashboard w=all uncached"),
    solo = by("REST dashboard w=all uncached, 1 conn"),
    cached = by("REST dashboard w=all cached");
  if (uncached) verdicts.push(`uncached dashboard p99 ≤ 25 ms (${CONNECTIONS} conns, single-flight on): ${uncached.p99} ms — ${meets(uncached.p99 <= 25)}`);
  if (solo) verdicts.push(`uncached dashboard p99 ≤ 25 ms (1 conn, every request computed): ${solo.p99} ms — ${meets(solo.p99 <= 25)}`);
  if (cached) verdicts.push(`cached dashboard ≥ 5,000 req/s: ${cached.rps} req/s — ${meets(cached.rps >= 5_000)}`);
  for (const r of results.filter((x) => x.name.startsWith("REST service")))
    verdicts.push(`service detail p99 ≤ 25 ms (${r.name.slice(13)}): ${r.p99} ms — ${meets(r.p99 <= 25)}`);
  if (ratios.length) {
    const worst = ratios.reduce((w, r) => (Math.max(r.p99, r.rps) > Math.max(w.p99, w.rps) ? r : w));
    verdicts.push(
      `GraphQL within 1.5× of REST: worst ${worst.pair} (p99 ${worst.p99.toFixed(2)}×, throughput ${worst.rps.toFixed(2)}×) — ${meets(ratios.every((r) => r.p99 <= 1.5 && r.rps <= 1.5))}`,
    );
  }
  if (feedFailure) verdicts.push(`feed: FAILED, measured nothing — ${feedFailure}`);
  else if (feed?.available)
    verdicts.push(
      `feed event-to-client p99 ≤ 100 ms with ${feed.connected} subscribers: ${feed.fromInsert.p99} ms — ${meets(feed.fromInsert.p99 <= 100 && feed.connected === feed.clients && feed.deliveries === feed.expectedDeliveries)}`,
    );
  console.log("\ntargets:\n" + verdicts.map((v) => `  ${v}`).join("\n"));
  let uptime = "";
  try {
    uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
  } catch {
    uptime = `load average ${loadAvg()}`;
  }
  console.log(`\nuptime at the end: ${uptime}`);
  if (process.env.BENCH_API_JSON)
    writeFileSync(process.env.BENCH_API_JSON, JSON.stringify({ seed, size, results, ratios, feed, feedFailure, verdicts, uptime }, null, 2));
  if (feedFailure) {
    console.error(`\nbench:api FAILED: the feed phase measured nothing — ${feedFailure}`);
    process.exitCode = 1;
  }
}

await main();
