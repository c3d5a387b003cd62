// `npm run bench:indexer` — backfill ≥100,000 transfer logs from a devnet and report logs/s for
// (1) raw eth_getLogs reading alone (the ceiling here: the fastest of 1, 2 and 3 requests in flight) and (2) the full
// indexer (fetch + decode + match + store), with peak RSS. Both are measured BENCH_PASSES times (default 5), each pass on a quiet machine, on the
// same chain: the ratio is the median full-indexer rate over the best raw pass. Options: BENCH_LOGS (default 100,000),
// BENCH_MAX_LOGS (logs per range cap, default 10,000 as the indexer's CHUNK_MAX_LOGS), BENCH_CHUNK_MAX (blocks per range
// cap), BENCH_TARGET_MS (range time target), BENCH_WATCHED (how many of the 10 accounts are watched, default 10),
// BENCH_CPU_PROFILE (path prefix: a CPU profile of the indexer process per full pass), BENCH_BATCHES=1 (print each
// committed batch's size and stage times), BENCH_FETCH_AHEAD (the indexer's requests in flight; "a,b" alternates them
// between passes, for an A/B run).
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { createPgPool, loadMatchContext, loadRegistryIntoDb, resetDatabase } from "@agent-ledger/db";
import { parseRegistry } from "@agent-ledger/core";
import { DEV_PRIVATE_KEYS, TOKENS, createDevnetClient, sendBulkTransfers, startAnvil } from "@agent-ledger/devnet";
import { pino } from "pino";
import { privateKeyToAccount } from "viem/accounts";
import { createRpcClient } from "../src/rpc/createRpcClient.ts";
import { fetchLogs } from "../src/rpc/fetchLogs.ts";
import { readProcessCpuSeconds } from "./readProcessCpuSeconds.ts";
import { createIndexer } from "../src/sync/createIndexer.ts";

const TARGET_LOGS = Number(process.env.BENCH_LOGS ?? 100_000);
const BENCH_DB = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger_bench";
const CHUNK = Number(process.env.BENCH_CHUNK_BLOCKS ?? 4);
const PASSES = Number(process.env.BENCH_PASSES ?? 5);
// BENCH_FETCH_AHEAD: eth_getLogs requests in flight (default: the indexer's); "a,b" alternates between passes (A/B).
const fetchAheadFor = (pass: number): number | undefined => {
  const values = (process.env.BENCH_FETCH_AHEAD ?? "").split(",").filter(Boolean).map(Number);
  return values.length ? values[pass % values.length] : undefined;
};
// How many of the ten paying accounts the registry watches: 10 (the default, the worst case) stores every log; with
// fewer, most fetched logs are filtered out before the write, as on a public chain where few wallets are watched.
// BENCH_METHODOLOGY: the methodology version the indexer matches with (default v0.1); "v0.1,v0.2" alternates between
// passes, so both versions are measured on the same chain under the same conditions (docs/methodology.md: ≤ 5 % apart).
const VERSIONS = (process.env.BENCH_METHODOLOGY ?? "v0.1").split(",").filter(Boolean);
const versionFor = (pass: number) => VERSIONS[pass % VERSIONS.length]!;
const WATCHED = Number(process.env.BENCH_WATCHED ?? 10);
if (!Number.isInteger(WATCHED) || WATCHED < 1 || WATCHED > 10) throw new Error("BENCH_WATCHED must be an integer from 1 to 10");

const senders = DEV_PRIVATE_KEYS.slice(0, 10);
const accounts = senders.map((k) => privateKeyToAccount(k).address.toLowerCase() as `0x${string}`);
// tx i goes from senders[i % 10] to recipients[i % 10]: rotate by one so nobody pays themselves.
const recipients = [...accounts.slice(1), accounts[0]!];

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`);
const anvil = await startAnvil({ blockTime: 1 });
try {
  // 1. Chain data: transferWithMemo between ten watched accounts (Transfer + TransferWithMemo + fee
  // Transfer = 3 logs each), submitted in rounds (anvil drops part of a single huge flood).
  let t = performance.now();
  let txs = 0;
  while (txs * 3 < TARGET_LOGS) {
    const sent = await sendBulkTransfers({
      rpcUrl: anvil.url,
      count: Math.min(8_000, Math.ceil((TARGET_LOGS - txs * 3) / 3) + 100),
      senders,
      recipients,
      withMemo: true,
      timeoutMs: 300_000,
    });
    txs += sent.txCount;
  }
  const head = await createDevnetClient({ url: anvil.url }).getBlockNumber();
  console.log(`registry: ${WATCHED} of the 10 paying accounts watched`);
  console.log(`generated ${txs} txs in blocks 1..${head} in ${((performance.now() - t) / 1000).toFixed(1)}s`);

  // 2. Raw read ceiling: eth_getLogs in fixed CHUNK-block ranges (the indexer's first range size; larger ranges read
  // slower on anvil, so this is the higher ceiling), nothing else. Repeated (anvil's speed varies
  // from pass to pass); the best pass is the ceiling.
  const rpc = createRpcClient(anvil.url, { timeoutMs: 120_000 });
  const rawRates: number[] = [];
  const rawCpu: number[] = [];
  const rawDetail: string[] = [];
  let rawLogs = 0;
  // Each raw pass reads the chain three times: one request at a time, two in flight (as the indexer fetches ahead) and
  // three. The fastest is that pass's ceiling.
  async function rawRead(inFlight: number): Promise<{ rate: number; busy: number }> {
    await settle();
    const started = performance.now();
    const before = readCpu();
    let logs = 0;
    let next = 0n;
    const worker = async () => {
      while (next <= head) {
        const from = next;
        const to = from + BigInt(CHUNK) - 1n < head ? from + BigInt(CHUNK) - 1n : head;
        next = to + 1n;
        const got = (await fetchLogs(rpc, from, to)).length; // read before adding: `logs += await …` would lose updates
        logs += got;
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    if (rawLogs && logs !== rawLogs) throw new Error(`raw reads disagree: ${logs} logs, earlier ${rawLogs}`);
    rawLogs = logs;
    return { rate: logs / ((performance.now() - started) / 1000), busy: cpuBusy(before, readCpu()).busy };
  }
  async function rawPass(): Promise<void> {
    const reads: { inFlight: number; rate: number; busy: number }[] = [];
    for (const inFlight of [1, 2, 3]) reads.push({ inFlight, ...(await rawRead(inFlight)) });
    const best = reads.reduce((a, b) => (b.rate > a.rate ? b : a));
    rawRates.push(best.rate);
    rawCpu.push(best.busy);
    rawDetail.push(reads.map((r) => `${r.inFlight} in flight ${r.rate.toFixed(0)}`).join(", "));
  }

  // 3. Full indexer into a fresh database. Passes alternate: raw read, full indexer, raw read, full indexer, …
  const registryPool = createPgPool(BENCH_DB, { max: 1 }); // registry loads and match contexts, beside the indexer's connection
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const fullRates: number[] = [];
  const fullRatesByVersion = new Map<string, number[]>();
  let peakRss = process.memoryUsage().rss;
  for (let pass = 0; pass < PASSES; pass++) {
    await rawPass();
    await resetDatabase(BENCH_DB);
    await loadRegistryIntoDb(
      registryPool,
      parseRegistry({
        registry_version: 2,
        network: "devnet",
        tokens: Object.entries(TOKENS).map(([symbol, address]) => ({ address, symbol, decimals: 6, currency: "USD" })),
        entities: accounts.slice(0, WATCHED).map((a, i) => ({ id: `bench-${i}${i % 2 ? "-mpp" : ""}`, label: `Bench ${i}`, category: "bench", wallets: [a] })),
      }),
      "bench",
    );
    const pool = createPgPool(BENCH_DB, { max: 1 });
    const client = await pool.connect();
    await client.query("CHECKPOINT"); // the fresh schema's writes are flushed before, not during, the pass
    await settle();
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 50);
    let gcMs = 0; // the indexer process's GC pauses (main thread) during the pass
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcMs += e.duration;
    });
    gcObserver.observe({ entryTypes: ["gc"] });
    let indexedLogs = 0,
      keptLogs = 0,
      rows = 0,
      batches = 0,
      fetchMs = 0,
      matchMs = 0,
      writeMs = 0;
    const indexer = createIndexer(
      {
        rpc,
        client,
        loadContext: () => loadMatchContext(registryPool, "https://explore.tempo.xyz"),
        log: pino({ level: "warn" }),
        onBatch: (b) => {
          if (process.env.BENCH_BATCHES)
            console.log(
              `  batch ${b.fromBlock}-${b.toBlock}: ${b.logs} logs, fetch ${b.fetchMs.toFixed(0)} ms, match ${b.matchMs.toFixed(0)} ms, write ${b.writeMs.toFixed(0)} ms`,
            );
          indexedLogs += b.logs;
          keptLogs += b.kept;
          rows += b.result.eventsInserted;
          batches++;
          fetchMs += b.fetchMs;
          matchMs += b.matchMs;
          writeMs += b.writeMs;
        },
      },
      {
        startBlock: 0n,
        confirmations: 0,
        chunk: {
          initial: CHUNK,
          min: 1,
          max: Number(process.env.BENCH_CHUNK_MAX ?? 10_000),
          targetMs: Number(process.env.BENCH_TARGET_MS ?? 2_000),
          maxLogs: Number(process.env.BENCH_MAX_LOGS ?? 10_000),
        },
        pollIntervalMs: 50,
        stopAtBlock: head,
        fetchAhead: fetchAheadFor(pass),
        methodologyVersion: versionFor(pass),
      },
    );
    t = performance.now();
    const profiler = process.env.BENCH_CPU_PROFILE ? await startProfiler() : null;
    const cpuBefore = readCpu();
    const selfBefore = process.cpuUsage();
    const backendPid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
    const backendBefore = readProcessCpuSeconds(backendPid);
    const anvilBefore = readProcessCpuSeconds(anvil.pid);
    await indexer.run(AbortSignal.timeout(600_000));
    const fullSeconds = (performance.now() - t) / 1000;
    const cpu = cpuBusy(cpuBefore, readCpu());
    const backendCpu = readProcessCpuSeconds(backendPid) - backendBefore;
    const anvilCpu = readProcessCpuSeconds(anvil.pid) - anvilBefore;
    const self = process.cpuUsage(selfBefore);
    const selfCpu = (self.user + self.system) / 1e6;
    const machineCpu = cpu.busy * fullSeconds;
    if (profiler) await profiler.stop(`${process.env.BENCH_CPU_PROFILE}.pass${pass + 1}.cpuprofile`);
    clearInterval(sampler);
    gcObserver.disconnect();
    client.release();
    await pool.end();
    fullRates.push(indexedLogs / fullSeconds);
    fullRatesByVersion.set(versionFor(pass), [...(fullRatesByVersion.get(versionFor(pass)) ?? []), indexedLogs / fullSeconds]);
    console.log(
      `pass ${pass + 1} (methodology ${versionFor(pass)})${fetchAheadFor(pass) ? ` (fetch ahead ${fetchAheadFor(pass)})` : ""}: raw eth_getLogs ${rawRates[pass]!.toFixed(0)} logs/s (${rawDetail[pass]}; CPU busy ${rawCpu[pass]!.toFixed(2)} cores = ${(rawCpu[pass]! * (rawLogs / rawRates[pass]!)).toFixed(2)} CPU s); full indexer ${indexedLogs} logs → ${keptLogs} raw logs kept, ${rows} rows, in ${batches} batches, ` +
        `${fullSeconds.toFixed(2)}s = ${(indexedLogs / fullSeconds).toFixed(0)} logs/s (stages: fetch ${(fetchMs / 1000).toFixed(2)}s overlapped, match ${(matchMs / 1000).toFixed(2)}s, write ${(writeMs / 1000).toFixed(2)}s); ` +
        `machine CPU busy ${cpu.busy.toFixed(2)} of ${os.cpus().length} cores (iowait ${cpu.iowait.toFixed(2)}), ` +
        `CPU seconds: indexer process ${selfCpu.toFixed(2)} (GC pauses ${(gcMs / 1000).toFixed(2)}), writing PostgreSQL backend ${backendCpu.toFixed(2)}, anvil ${anvilCpu.toFixed(2)}, everything else (other PostgreSQL processes, other work on the machine) ${(machineCpu - selfCpu - backendCpu - anvilCpu).toFixed(2)}, ` +
        `total ${machineCpu.toFixed(2)} (${os.cpus().length} cores cannot do that in under ${(machineCpu / os.cpus().length).toFixed(2)} s)`,
    );
  }
  await registryPool.end();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const bestRaw = Math.max(...rawRates);
  const fullRate = median(fullRates);
  console.log(
    `\nraw eth_getLogs:  ${rawLogs} logs, ${PASSES} passes: best ${bestRaw.toFixed(0)}, median ${median(rawRates).toFixed(0)} logs/s (chunks of ${CHUNK} blocks)`,
  );
  console.log(`full indexer:     ${PASSES} passes: median ${fullRate.toFixed(0)}, best ${Math.max(...fullRates).toFixed(0)} logs/s`);
  console.log(
    `ratio:            median full / best raw = ${((fullRate / bestRaw) * 100).toFixed(0)}% (median / median ${((fullRate / median(rawRates)) * 100).toFixed(0)}%), (the 50 % target is retired on 2 cores: BENCHMARKS.md); ` +
      `target ≥ 30,000 logs/s: ${fullRate >= 30_000 ? "met" : "NOT met"}`,
  );
  if (VERSIONS.length > 1) {
    for (const [v, rates] of fullRatesByVersion) console.log(`methodology ${v}:  ${rates.length} passes: median ${median(rates).toFixed(0)} logs/s`);
    const [a, b] = VERSIONS.map((v) => median(fullRatesByVersion.get(v) ?? [0]));
    console.log(`${VERSIONS[1]} vs ${VERSIONS[0]}: ${(((b! - a!) / a!) * 100).toFixed(1)} % (target: no more than 5 % slower)`);
  }
  console.log(`memory:           peak RSS ${mb(peakRss)} (bounded by CHUNK_MAX_LOGS per range in flight)`);
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
} finally {
  await anvil.stop();
}

/**
 * Waits (≤ 15 s) until the machine is quiet — under 0.3 busy cores over 300 ms — so that no pass pays for the work of
 * the one before it (PostgreSQL's checkpointer and autovacuum after a 100k-row write, a schema drop).
 */
async function settle(): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const before = readCpu();
    await new Promise((r) => setTimeout(r, 300));
    if (cpuBusy(before, readCpu()).busy < 0.3) return;
  }
}

/** The machine's CPU time counters (/proc/stat, in clock ticks): busy (user, nice, system, irq, softirq, steal), iowait, total. */
function readCpu(): { busy: number; iowait: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  return { busy: user + nice + system + irq + softirq + steal, iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** Average cores busy (and in iowait) between two readings. */
function cpuBusy(a: ReturnType<typeof readCpu>, b: ReturnType<typeof readCpu>): { busy: number; iowait: number } {
  const cores = os.cpus().length;
  const total = b.total - a.total || 1;
  return { busy: ((b.busy - a.busy) / total) * cores, iowait: ((b.iowait - a.iowait) / total) * cores };
}

/** BENCH_CPU_PROFILE=<path prefix>: a V8 CPU profile of this process (main thread) during each full-indexer pass. */
async function startProfiler(): Promise<{ stop: (file: string) => Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(file) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`CPU profile written to ${file}`);
    },
  };
}
