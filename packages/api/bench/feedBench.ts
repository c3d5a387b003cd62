// The live-feed part of `npm run bench:api`: the API as its own process (main.ts with NEXT_PUBLIC_LIVE_FEED=1, as
// deployed), N concurrent SSE subscribers on GET /api/feed (raw HTTP GETs parsing `data:` lines — lighter than N
// EventSource objects), rows inserted through the indexer's writeBatch at known times, and the time from the insert to
// each client receiving the row. When GET /api/feed does not answer with an event stream, the feed is "not available".
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import { createServer } from "node:net";
import path from "node:path";
import { matchLogs, FEE_MANAGER_ADDRESS, TRANSFER_TOPIC, type MatchContext, type RawLog } from "@agent-ledger/core";
import { createPrisma, loadMatchContext } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import pg from "pg";
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
  log: (line: string) => void;
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
  const s = createServer();
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

/** Event ids in one SSE message: `data:` JSON (a row, `{event|row|data: row}`, or lists of rows), else the `id:` field. */
export function idsOfMessage(data: string, sseId: string | null): string[] {
  const ids: string[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 3 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) return void v.forEach((x) => visit(x, depth + 1));
    const o = v as Record<string, unknown>;
    if ((typeof o.id === "number" || typeof o.id === "string") && ("tx_hash" in o || "txHash" in o || "kind" in o)) ids.push(String(o.id));
    for (const k of ["event", "row", "data", "payload", "events", "items", "rows"]) if (k in o) visit(o[k], depth + 1);
  };
  try {
    visit(JSON.parse(data), 0);
  } catch {
    // not JSON
  }
  if (ids.length === 0 && sseId && /^\d+$/.test(sseId)) ids.push(sseId);
  return ids;
}

/**
 * One SSE subscriber. The socket callback only stores the chunk with its arrival time (cheap, so 1,000 sockets readable
 * at once delay each other as little as possible); `messages()` parses the stream afterwards.
 */
interface Subscriber {
  req: http.ClientRequest;
  chunks: { at: number; text: string }[];
}

function subscribe(url: string): Promise<Subscriber | null> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
        res.resume();
        req.destroy();
        return resolve(null);
      }
      res.setEncoding("utf8");
      const sub: Subscriber = { req, chunks: [] };
      res.on("data", (text: string) => sub.chunks.push({ at: performance.now(), text }));
      res.on("error", () => {});
      resolve(sub);
    });
    req.on("error", () => resolve(null));
    req.setTimeout(30_000, () => req.destroy());
  });
}

/** The SSE messages of a subscriber's stream from chunk `from` on: data, id, and the arrival time of their last chunk. */
function messages(sub: Subscriber, from = 0): { data: string; id: string | null; at: number }[] {
  const out: { data: string; id: string | null; at: number }[] = [];
  let buffer = "";
  let data: string[] = [];
  let sseId: string | null = null;
  for (let c = from; c < sub.chunks.length; c++) {
    const { at, text } = sub.chunks[c]!;
    buffer += text;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (line === "") {
        if (data.length) out.push({ data: data.join("\n"), id: sseId, at });
        data = [];
        sseId = null;
      } else if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
      else if (line.startsWith("id:")) sseId = line.slice(line[3] === " " ? 4 : 3);
    }
  }
  return out;
}

function startApiProcess(databaseUrl: string, port: number): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "packages/api/src/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, API_HOST: "127.0.0.1", API_PORT: String(port), NEXT_PUBLIC_LIVE_FEED: "1", LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "pipe"],
  });
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
    logs.push({ ...base, logIndex: 0, address: TOKEN, topics: [TRANSFER_TOPIC, pad(agent), pad(service)], data: `0x${(1_000_000 + i).toString(16).padStart(64, "0")}` });
    logs.push({ ...base, logIndex: 1, address: TOKEN, topics: [TRANSFER_TOPIC, pad(agent), pad(FEE_MANAGER_ADDRESS)], data: `0x${(2_000).toString(16).padStart(64, "0")}` });
  }
  return logs;
}

export async function runFeedBench(options: FeedBenchOptions): Promise<FeedBenchResult> {
  const { log } = options;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startApiProcess(options.databaseUrl, port);
  const subscribers: Subscriber[] = [];
  try {
    // 1. The API process is up?
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) return { available: false, reason: `the api process exited (${child.exitCode})` };
      const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false);
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
      const opened = await Promise.all(Array.from({ length: Math.min(100, options.clients - wave) }, () => subscribe(`${base}/api/feed`)));
      for (const s of opened) if (s) subscribers.push(s);
    }
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    log(`  feed: ${subscribers.length}/${options.clients} subscribers connected in ${connectSeconds.toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 1_000));
    const skip = subscribers.map((s) => s.chunks.length); // what arrived before the inserts (retry:, replays, pings)

    // 4. Rows through the indexer's write path at known times.
    const registry = buildBenchRegistry(options.agents);
    const prisma = createPrisma(options.databaseUrl);
    const context: MatchContext = await loadMatchContext(prisma, EXPLORER);
    await prisma.$disconnect();
    const writer = new pg.Client({ connectionString: options.databaseUrl });
    await writer.connect();
    const insertedAt = new Map<string, { start: number; end: number }>();
    const writeMs: number[] = [];
    let rowsInserted = 0;
    try {
      const { rows } = await writer.query("SELECT last_block::text FROM indexer_checkpoints WHERE id = $1", [FEED_STREAM]);
      let previous = rows[0] ? BigInt(rows[0].last_block) : 100_000_000n;
      const runSalt = Date.now().toString(36);
      for (let b = 0; b < options.batches; b++) {
        const logs = feedLogs(registry, previous + 1n, Math.floor(Date.now() / 1000), options.txsPerBatch, `${runSalt}:${b}`);
        const prepared = prepareBatch(logs, matchLogs(logs, context));
        const toBlock = previous + BigInt(options.txsPerBatch);
        const start = performance.now();
        const result = await writeBatch(writer, { streamId: FEED_STREAM, chainId: BENCH_CHAIN_ID, startBlock: 100_000_001n, previousBlock: previous, toBlock, toBlockHash: logs.at(-1)!.blockHash, prepared });
        const end = performance.now();
        writeMs.push(end - start);
        previous = toBlock;
        for (let id = result.firstEventId!; id <= result.lastEventId!; id++) insertedAt.set(String(id), { start, end });
        rowsInserted += result.eventsInserted;
        await new Promise((r) => setTimeout(r, options.intervalMs));
      }
    } finally {
      await writer.end();
    }

    // 5. Wait for the stragglers (at most 5 s), then parse every stream and compute.
    const expectedDeliveries = rowsInserted * subscribers.length;
    const delivered = (final: boolean) => {
      const seen = new Map<string, number>(); // `${client}:${id}` → arrival
      let sample = "";
      subscribers.forEach((sub, client) => {
        for (const m of messages(sub, skip[client])) {
          if (!sample) sample = m.data.slice(0, 300);
          for (const id of idsOfMessage(m.data, m.id)) if (insertedAt.has(id) && !seen.has(`${client}:${id}`)) seen.set(`${client}:${id}`, m.at);
        }
      });
      return final ? { seen, sample } : { seen, sample: "" };
    };
    const waitUntil = performance.now() + 5_000;
    while (performance.now() < waitUntil) {
      await new Promise((r) => setTimeout(r, 500));
      if (delivered(false).seen.size >= expectedDeliveries) break;
    }
    const { seen: received, sample } = delivered(true);
    const fromInsert: number[] = [];
    const fromCommit: number[] = [];
    const perRow = new Map<string, { first: number; last: number }>();
    for (const [key, at] of received) {
      const id = key.slice(key.indexOf(":") + 1);
      const t = insertedAt.get(id)!;
      fromInsert.push(at - t.start);
      fromCommit.push(at - t.end);
      const r = perRow.get(id);
      if (!r) perRow.set(id, { first: at - t.end, last: at - t.end });
      else {
        r.first = Math.min(r.first, at - t.end);
        r.last = Math.max(r.last, at - t.end);
      }
    }
    const rowsSeen = [...perRow.values()];
    return {
      available: true,
      clients: options.clients,
      connected: subscribers.length,
      connectSeconds: Math.round(connectSeconds * 10) / 10,
      rowsInserted,
      expectedDeliveries,
      deliveries: received.size,
      fromInsert: stats(fromInsert),
      fromCommit: stats(fromCommit),
      writeMs: { p50: stats(writeMs).p50, max: stats(writeMs).max },
      firstClient: stats(rowsSeen.map((r) => r.first)),
      fanOut: stats(rowsSeen.map((r) => r.last - r.first)),
      sample,
    };
  } finally {
    for (const s of subscribers) s.req.destroy();
    await stopProcess(child);
  }
}
