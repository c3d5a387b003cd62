// The live-feed part of `npm run bench:api`: the API as its own process (main.ts with NEXT_PUBLIC_LIVE_FEED=1, as
// deployed), N concurrent SSE subscribers on GET /api/feed, rows inserted through the indexer's writeBatch at known
// times, and the time from the insert to each client receiving the row. When GET /api/feed does not answer with an
// event stream, the feed is "not available".
//
// The subscribers are real TCP connections in this process that send a plain HTTP/1.1 GET and read the raw bytes
// (`onread`: one callback per read, which only copies the bytes out and notes the time); the HTTP response (head,
// chunked body) and the SSE stream are decoded after the run (bench/feedFrames.ts). Arrival = when this process's JS
// sees the bytes of the read that completed the message. Times come from one monotonic clock (process.hrtime), the same
// in every process.
//
// The rows are matched under `methodologyVersion` and the API process is started with METHODOLOGY_VERSION set to it
// (it streams no other version's rows), from the sources (`--conditions=agent-ledger-source`, as the bench itself
// runs). A run in which no inserted row is recognized in any stream throws FeedBenchError: a 0 measures nothing.
//
// Env: BENCH_API_FEED_WARMUP (unmeasured inserts first, default 1), BENCH_API_FEED_CPU_PROF=<dir> (a V8 CPU profile
// of the API process), BENCH_API_FEED_MAIN=<path of a main.ts> (run another checkout's API under the same harness,
// to compare versions).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { matchLogs, FEE_MANAGER_ADDRESS, TRANSFER_TOPIC, type MatchContext, type RawLog } from "@agent-ledger/core";
import { createPgPool, loadMatchContext } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import pg from "pg";
import { decodeSseResponse, describeMessageTypes, rowIdOfMessage, type SseMessage } from "./feedFrames.ts";
import { BENCH_CHAIN_ID, EXPLORER, TOKEN, buildBenchRegistry } from "./seedBenchLedger.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const FEED_STREAM = "bench-api-feed";

export interface FeedBenchOptions {
  databaseUrl: string;
  agents: number;
  clients: number;
  /** Insert batches, `intervalMs` apart, each of `txsPerBatch` payments (2 rows each: agent sent, service received). */
  batches: number;
  txsPerBatch: number;
  intervalMs: number;
  /** Unmeasured inserts before the measured ones (default BENCH_API_FEED_WARMUP, else 1). */
  warmupBatches?: number;
  /** The version the inserted rows are matched under and the API process serves (METHODOLOGY_VERSION): the ledger's. */
  methodologyVersion: string;
  /** More environment for the API process, applied last (tests: a mismatched METHODOLOGY_VERSION). */
  apiEnv?: Record<string, string>;
  log: (line: string) => void;
}

/** The feed measured nothing: no inserted row was recognized in any subscriber's stream. */
export class FeedBenchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FeedBenchError";
  }
}

export type FeedBenchResult =
  | { available: false; reason: string }
  | {
      available: true;
      clients: number;
      connected: number;
      connectSeconds: number;
      rowsInserted: number;
      expectedDeliveries: number;
      deliveries: number;
      /** ms from the start of the writeBatch call (includes the write transaction) to the client's socket read. */
      fromInsert: { p50: number; p99: number; max: number };
      /** ms from writeBatch's return (commit acknowledged) to the client's socket read. */
      fromCommit: { p50: number; p99: number; max: number };
      writeMs: { p50: number; max: number };
      /** Per row: ms from the commit to its first subscriber, and from its first to its last subscriber. */
      firstClient: { p50: number; p99: number; max: number };
      fanOut: { p50: number; p99: number; max: number };
      sample: string;
    };

async function freePort(): Promise<number> {
  const s = net.createServer();
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const stats = (values: number[]) => {
  const sorted = Float64Array.from(values).sort();
  const r = (x: number) => Math.round(x * 10) / 10;
  return { p50: r(percentile(sorted, 50)), p99: r(percentile(sorted, 99)), max: r(sorted.at(-1) ?? Number.NaN) };
};

/** A monotonic clock in ms shared by every process on the machine (CLOCK_MONOTONIC), for arrival and insert times. */
export const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * One SSE subscriber: a plain TCP connection that sends `GET /api/feed` and reads with `onread` (bytes land in a
 * buffer and one callback runs per read — no HTTP parser, no stream, no decoding on the hot path), so 1,000 sockets
 * readable at once delay each other as little as the client process allows. The callback only copies the bytes into
 * the subscriber's own store (memory outside the JS heap, so the reads leave no garbage and cause no GC pause while
 * measuring) and notes the arrival time; `messages()` decodes the HTTP response and the SSE stream afterwards.
 */
interface Subscriber {
  socket: net.Socket;
  /** Everything received, in order: `bytes[0, size)`, stored in blocks of STORE_BLOCK bytes. */
  blocks: Buffer[];
  size: number;
  /** Read i ended at byte `ends[i]` and arrived at `ats[i]` (ms, `now()`). */
  ends: number[];
  ats: number[];
  /** The response head once it has arrived (checked when connecting). */
  head: string | null;
}

const READ_BUFFER = Buffer.allocUnsafe(256 * 1024); // shared: each read is copied out before the callback returns
// Per subscriber, filled in order; the memory is touched when allocated (at connect time, and for any further block),
// so that copying a read costs no page faults while measuring. 256 KB hold the head and 20 batches many times over.
const STORE_BLOCK = 256 * 1024;
const storeBlock = () => Buffer.allocUnsafeSlow(STORE_BLOCK).fill(0);

function received(sub: Subscriber): Buffer {
  return (sub.blocks.length === 1 ? sub.blocks[0]! : Buffer.concat(sub.blocks)).subarray(0, sub.size);
}

function subscribe(port: number, path: string): Promise<Subscriber | null> {
  return new Promise((resolve) => {
    const sub: Subscriber = { socket: null as unknown as net.Socket, blocks: [storeBlock()], size: 0, ends: [], ats: [], head: null };
    const socket = net.connect({
      host: "127.0.0.1",
      port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback(n, buf) {
          const at = now();
          for (let copied = 0; copied < n; ) {
            const offset = sub.size % STORE_BLOCK;
            if (offset === 0 && sub.size > 0) sub.blocks.push(storeBlock());
            const k = Math.min(n - copied, STORE_BLOCK - offset);
            (buf as Buffer).copy(sub.blocks.at(-1)!, offset, copied, copied + k);
            copied += k;
            sub.size += k;
          }
          sub.ends.push(sub.size);
          sub.ats.push(at);
          if (sub.head === null) {
            const text = received(sub).toString("latin1");
            const end = text.indexOf("\r\n\r\n");
            if (end >= 0) {
              sub.head = text.slice(0, end);
              resolve(/^HTTP\/1\.1 200 /.test(sub.head) && /\r\ncontent-type: text\/event-stream/i.test(sub.head) ? sub : (socket.destroy(), null));
            }
          }
          return true;
        },
      },
    });
    sub.socket = socket;
    socket.on("connect", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`));
    socket.on("error", () => resolve(null));
    socket.on("close", () => resolve(null));
  });
}

/** The SSE messages of a subscriber's stream, each with the arrival time of the read that completed it. */
function messages(sub: Subscriber): SseMessage[] {
  return decodeSseResponse(received(sub), sub.ends, sub.ats);
}

function startApiProcess(databaseUrl: string, port: number, methodologyVersion: string, extraEnv: Record<string, string> = {}): ChildProcess {
  // BENCH_API_FEED_CPU_PROF=<dir>: write a V8 CPU profile of the API process there (node --cpu-prof).
  const prof = process.env.BENCH_API_FEED_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_API_FEED_CPU_PROF}`] : [];
  // The sources, as this process runs them (without the condition the workspace packages resolve to dist/, maybe stale).
  const child = spawn(
    process.execPath,
    ["--conditions=agent-ledger-source", ...prof, "--import", "tsx", process.env.BENCH_API_FEED_MAIN ?? path.join(ROOT, "packages/api/src/main.ts")],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        API_HOST: "127.0.0.1",
        API_PORT: String(port),
        NEXT_PUBLIC_LIVE_FEED: "1",
        LOG_LEVEL: "warn",
        METHODOLOGY_VERSION: methodologyVersion,
        ...extraEnv,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  child.stderr!.setEncoding("utf8");
  let tail = "";
  child.stderr!.on("data", (s: string) => (tail = (tail + s).slice(-2_000)));
  child.on("exit", (code, signal) => {
    if (code && code !== 0) console.error(`api process exited (${signal ?? code}): ${tail}`);
  });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** `txs` payments agent → service at `ts`, one transaction per block from `firstBlock`. */
function feedLogs(registry: ReturnType<typeof buildBenchRegistry>, firstBlock: bigint, ts: number, txs: number, salt: string): RawLog[] {
  const logs: RawLog[] = [];
  const pad = (a: string) => `0x${a.slice(2).padStart(64, "0")}`;
  for (let i = 0; i < txs; i++) {
    const agent = registry.agents[(i * 7) % registry.agents.length]!.wallets[0]!;
    const service = registry.services[1 + (i % (registry.services.length - 1))]!.wallets[0]!;
    const block = firstBlock + BigInt(i);
    const txHash = `0x${Buffer.from(`${salt}:${i}`).toString("hex").padEnd(64, "0").slice(0, 64)}`;
    const base = { blockNumber: block, blockHash: `0x${block.toString(16).padStart(64, "f")}`, blockTimestamp: ts, txHash, txIndex: 0 };
    logs.push({
      ...base,
      logIndex: 0,
      address: TOKEN,
      topics: [TRANSFER_TOPIC, pad(agent), pad(service)],
      data: `0x${(1_000_000 + i).toString(16).padStart(64, "0")}`,
    });
    logs.push({
      ...base,
      logIndex: 1,
      address: TOKEN,
      topics: [TRANSFER_TOPIC, pad(agent), pad(FEE_MANAGER_ADDRESS)],
      data: `0x${(2_000).toString(16).padStart(64, "0")}`,
    });
  }
  return logs;
}

export async function runFeedBench(options: FeedBenchOptions): Promise<FeedBenchResult> {
  const { log } = options;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startApiProcess(options.databaseUrl, port, options.methodologyVersion, options.apiEnv);
  const subscribers: Subscriber[] = [];
  try {
    // 1. The API process is up?
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) return { available: false, reason: `the api process exited (${child.exitCode})` };
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) return { available: false, reason: "the api process did not answer /healthz within 60 s" };
      await new Promise((r) => setTimeout(r, 200));
    }
    // 2. Is there a feed?
    const probe = await new Promise<{ status: number; type: string; body: string }>((resolve) => {
      const req = http.get(`${base}/api/feed`, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
        const type = String(res.headers["content-type"] ?? "");
        if (type.startsWith("text/event-stream")) {
          req.destroy();
          return resolve({ status: res.statusCode ?? 0, type, body: "" });
        }
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type, body: body.slice(0, 200) }));
      });
      req.on("error", (e) => resolve({ status: 0, type: "", body: e.message }));
      req.setTimeout(5_000, () => req.destroy(new Error("no answer within 5 s")));
    });
    if (probe.status !== 200 || !probe.type.startsWith("text/event-stream")) {
      return { available: false, reason: `GET /api/feed answered ${probe.status} ${probe.type} ${probe.body}`.trim() };
    }

    // 3. N subscribers, opened in waves.
    const connectStarted = performance.now();
    for (let wave = 0; wave < options.clients; wave += 100) {
      const opened = await Promise.all(Array.from({ length: Math.min(100, options.clients - wave) }, () => subscribe(port, "/api/feed")));
      for (const s of opened) if (s) subscribers.push(s);
    }
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    log(`  feed: ${subscribers.length}/${options.clients} subscribers connected in ${connectSeconds.toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 1_000));

    // 4. Rows through the indexer's write path at known times.
    const registry = buildBenchRegistry(options.agents);
    const registryDb = createPgPool(options.databaseUrl, { max: 1 });
    const context: MatchContext = await loadMatchContext(registryDb, EXPLORER);
    await registryDb.end();
    const writer = new pg.Client({ connectionString: options.databaseUrl });
    await writer.connect();
    const insertedAt = new Map<string, { start: number; end: number; batch: number }>();
    const writeMs: number[] = [];
    let rowsInserted = 0;
    // Warm-up inserts first, timed but not counted (like the REST cases' warm-up): the writer connection's first
    // writeBatch also sets it up (a staging table), and the API process meets its first rows (cold code paths).
    const warmup = options.warmupBatches ?? Number(process.env.BENCH_API_FEED_WARMUP ?? 1);
    try {
      const { rows } = await writer.query("SELECT last_block::text FROM indexer_checkpoints WHERE id = $1", [FEED_STREAM]);
      let previous = rows[0] ? BigInt(rows[0].last_block) : 100_000_000n;
      const runSalt = Date.now().toString(36);
      for (let b = -warmup; b < options.batches; b++) {
        const logs = feedLogs(registry, previous + 1n, Math.floor(Date.now() / 1000), options.txsPerBatch, `${runSalt}:${b}`);
        const prepared = prepareBatch(logs, matchLogs(logs, context, options.methodologyVersion));
        const toBlock = previous + BigInt(options.txsPerBatch);
        const start = now();
        const result = await writeBatch(writer, {
          streamId: FEED_STREAM,
          chainId: BENCH_CHAIN_ID,
          startBlock: 100_000_001n,
          previousBlock: previous,
          toBlock,
          toBlockHash: logs.at(-1)!.blockHash,
          prepared,
        });
        const end = now();
        previous = toBlock;
        for (let id = result.firstEventId!; id <= result.lastEventId!; id++) insertedAt.set(String(id), { start, end, batch: b });
        if (b >= 0) {
          writeMs.push(end - start);
          rowsInserted += result.eventsInserted;
        }
        await new Promise((r) => setTimeout(r, options.intervalMs));
      }
    } finally {
      await writer.end();
    }

    // 5. Wait for the stragglers (at most 5 s), then parse every stream and compute.
    const expectedDeliveries = (rowsInserted + [...insertedAt.values()].filter((t) => t.batch < 0).length) * subscribers.length;
    const delivered = (final: boolean) => {
      const seen = new Map<string, number>(); // `${client}:${id}` → arrival
      let sample = "";
      const all: SseMessage[] = [];
      subscribers.forEach((sub, client) => {
        for (const m of messages(sub)) {
          if (final) all.push(m);
          if (!sample) sample = `event: ${m.type}, data: ${m.data.slice(0, 300)}`;
          const id = rowIdOfMessage(m);
          if (id !== null && insertedAt.has(id) && !seen.has(`${client}:${id}`)) seen.set(`${client}:${id}`, m.at);
        }
      });
      return { seen, sample, types: final ? describeMessageTypes(all) : "" };
    };
    const waitUntil = performance.now() + 5_000;
    while (performance.now() < waitUntil) {
      await new Promise((r) => setTimeout(r, 500));
      if (delivered(false).seen.size >= expectedDeliveries) break;
    }
    const { seen: received, sample, types } = delivered(true);
    const fromInsert: number[] = [];
    const fromCommit: number[] = [];
    const perRow = new Map<string, { first: number; last: number }>();
    const perBatch = new Map<number, { write: number; first: number; last: number }>();
    let deliveries = 0;
    const withWarmup: number[] = [];
    for (const [key, at] of received) {
      const id = key.slice(key.indexOf(":") + 1);
      const t = insertedAt.get(id)!;
      withWarmup.push(at - t.start);
      const pb = perBatch.get(t.batch) ?? { write: t.end - t.start, first: Infinity, last: -Infinity };
      perBatch.set(t.batch, { ...pb, first: Math.min(pb.first, at - t.end), last: Math.max(pb.last, at - t.end) });
      if (t.batch < 0) continue; // warm-up
      deliveries++;
      fromInsert.push(at - t.start);
      fromCommit.push(at - t.end);
      const r = perRow.get(id);
      if (!r) perRow.set(id, { first: at - t.end, last: at - t.end });
      else {
        r.first = Math.min(r.first, at - t.end);
        r.last = Math.max(r.last, at - t.end);
      }
    }
    if (deliveries === 0) {
      const ids = [...insertedAt.entries()].filter(([, t]) => t.batch >= 0).map(([id]) => id);
      throw new FeedBenchError(
        `no inserted row was recognized in the stream: ${ids.length} rows inserted (ids ${ids[0]}–${ids.at(-1)}, methodology ` +
          `${options.methodologyVersion}, after ${received.size} warm-up deliveries); ${subscribers.length} subscribers received ${types}; ` +
          `the API process was started with METHODOLOGY_VERSION=${options.apiEnv?.METHODOLOGY_VERSION ?? options.methodologyVersion} and ` +
          `streams only that version's rows; first message: ${sample || "(none)"}`,
      );
    }
    const rowsSeen = [...perRow.values()];
    const f1 = (x: number) => x.toFixed(1);
    log(
      `  per batch, ms (write transaction / commit → first subscriber / commit → last subscriber), warm-up in brackets:\n    ` +
        [...perBatch.entries()]
          .sort(([a], [b]) => a - b)
          .map(([b, x]) => (b < 0 ? `[${f1(x.write)}/${f1(x.first)}/${f1(x.last)}]` : `${f1(x.write)}/${f1(x.first)}/${f1(x.last)}`))
          .join(" "),
    );
    if (warmup > 0)
      log(`  event-to-client from the insert call with the warm-up counted too: p99 ${stats(withWarmup).p99} ms, max ${stats(withWarmup).max} ms`);
    return {
      available: true,
      clients: options.clients,
      connected: subscribers.length,
      connectSeconds: Math.round(connectSeconds * 10) / 10,
      rowsInserted,
      expectedDeliveries: rowsInserted * subscribers.length,
      deliveries,
      fromInsert: stats(fromInsert),
      fromCommit: stats(fromCommit),
      writeMs: { p50: stats(writeMs).p50, max: stats(writeMs).max },
      firstClient: stats(rowsSeen.map((r) => r.first)),
      fanOut: stats(rowsSeen.map((r) => r.last - r.first)),
      sample,
    };
  } finally {
    for (const s of subscribers) s.socket.destroy();
    await stopProcess(child);
  }
}
