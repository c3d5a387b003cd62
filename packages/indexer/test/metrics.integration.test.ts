import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { DEV_PRIVATE_KEYS, createDevnetClient, sendBulkTransfers, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { EXPLORER, indexUntil, loadRegistry } from "./helpers.ts";

// The indexer process serves /metrics and /healthz on its own port (INDEXER_METRICS_PORT, loopback by default):
// scraped while it backfills a devnet, while a second process waits as a standby, and while a third cannot reach
// its node (the RPC error counter). The processes are real `main.ts` children, as in the crash test.

const ROOT = path.resolve(import.meta.dirname, "../../..");
const MAIN = path.join(ROOT, "packages/indexer/src/main.ts");
const senders = DEV_PRIVATE_KEYS.slice(1, 3);
const recipients = DEV_PRIVATE_KEYS.slice(5, 7).map((k) => privateKeyToAccount(k).address.toLowerCase() as `0x${string}`);

interface Proc {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
  stderr: () => string;
}

function startIndexer(env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split("\n");
    rest = parts.pop() ?? "";
    for (const p of parts)
      if (p.trim())
        try {
          lines.push(JSON.parse(p));
        } catch {
          lines.push({ msg: p });
        }
  });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      if (code) console.error(`indexer exited ${code}: ${stderr}`);
      resolve(code);
    }),
  );
  return { child, lines, exited, stderr: () => stderr };
}

async function until<T>(check: () => T | Promise<T>, timeoutMs: number, what: string): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const portOf = (p: Proc) => p.lines.find((l) => l.msg === "metrics server listening")?.port as number | undefined;

/** Samples of the exposition text: `name{labels}` → value. */
async function scrape(port: number): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe("indexer /metrics and /healthz", () => {
  let anvil: AnvilInstance;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let registryFile: string;
  let head: bigint;
  const procs: Proc[] = [];

  beforeAll(async () => {
    [anvil, db] = await Promise.all([startAnvil(), createTestDatabase()]);
    for (let i = 0; i < 40; i++) await sendBulkTransfers({ rpcUrl: anvil.url, count: 2, senders, recipients, withMemo: true, batchSize: 2 });
    head = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    registryFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "ledger-metrics-")), "registry.json");
    await fs.writeFile(
      registryFile,
      JSON.stringify({
        registry_version: 1,
        network: "devnet",
        entities: [
          ...senders.map((k, i) => ({ id: `sender-${i}`, label: `Sender ${i}`, category: "agent", wallets: [privateKeyToAccount(k).address.toLowerCase()] })),
          ...recipients.map((a, i) => ({ id: `recipient-${i}-mpp`, label: `Recipient ${i}`, category: "service", wallets: [a] })),
        ],
      }),
    );
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) p.child.kill("SIGKILL");
    await Promise.allSettled(procs.map((p) => p.exited));
    await Promise.allSettled([anvil?.stop(), db?.drop()]);
  });

  it("reports leadership, head, checkpoint, lag, logs, batch write time while indexing; a standby reports leader 0", async () => {
    expect(head).toBeGreaterThan(30n);
    const env = {
      DATABASE_URL: db.url,
      TEMPO_RPC_URL: anvil.url,
      REGISTRY_FILE: registryFile,
      EXPLORER_BASE_URL: EXPLORER,
      METHODOLOGY_VERSION: "v0.1",
      CHUNK_INITIAL_BLOCKS: "1",
      CHUNK_MAX_BLOCKS: "2",
      LOG_LEVEL: "debug",
      INDEXER_METRICS_PORT: "0",
      POLL_INTERVAL_MS: "100",
    };
    const leader = startIndexer(env);
    procs.push(leader);
    const port = await until(() => portOf(leader), 60_000, "the leader's metrics port");
    expect(leader.lines.find((l) => l.msg === "metrics server listening")).toMatchObject({ host: "127.0.0.1" });

    // mid-backfill: some batches committed, the checkpoint behind the head
    await until(() => leader.lines.filter((l) => l.msg === "batch committed").length >= 3, 60_000, "three committed batches");
    const during = await scrape(port);
    expect(during.get("agent_ledger_indexer_leader")).toBe(1);
    expect(during.get("agent_ledger_indexer_chain_head_block")).toBeGreaterThanOrEqual(Number(head));
    expect(during.get("agent_ledger_indexer_checkpoint_block")).toBeGreaterThan(0);
    expect(during.get("agent_ledger_indexer_lag_blocks")).toBe(
      during.get("agent_ledger_indexer_chain_head_block")! - during.get("agent_ledger_indexer_checkpoint_block")!,
    );
    expect(during.get("agent_ledger_indexer_batches_total")).toBeGreaterThanOrEqual(3);
    expect(during.get("agent_ledger_indexer_batch_write_seconds_count")).toBe(during.get("agent_ledger_indexer_batches_total"));
    expect(during.get("agent_ledger_indexer_batch_write_seconds_sum")).toBeGreaterThan(0);
    expect(during.get("agent_ledger_indexer_last_batch_timestamp_seconds")).toBeGreaterThan(Date.now() / 1000 - 120);
    expect(during.get("agent_ledger_indexer_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    for (const name of during.keys()) expect(name).toMatch(/^agent_ledger_indexer_/);

    // caught up: lag 0, every log of the devnet counted, the rows written equal the rows in the table
    await until(() => leader.lines.some((l) => l.msg === "caught up with the head; following"), 120_000, "the leader to catch up");
    const after = await scrape(port);
    expect(after.get("agent_ledger_indexer_checkpoint_block")).toBeGreaterThanOrEqual(Number(head));
    expect(after.get("agent_ledger_indexer_lag_blocks")).toBe(0);
    expect(after.get("agent_ledger_indexer_logs_fetched_total")).toBeGreaterThanOrEqual(160); // 80 transfers, a Transfer and a memo log each
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const rows = (await c.query("SELECT count(*)::int AS n FROM agent_events")).rows[0].n as number;
    await c.end();
    expect(rows).toBeGreaterThan(0);
    expect(after.get("agent_ledger_indexer_rows_written_total")).toBe(rows);
    expect(after.get('agent_ledger_indexer_rpc_errors_total{method="eth_getLogs"}') ?? 0).toBe(0);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      ok: true,
      leader: true,
      head: expect.stringMatching(/^\d+$/),
      checkpoint: expect.stringMatching(/^\d+$/),
      lagBlocks: 0,
    });
    expect((await fetch(`http://127.0.0.1:${port}/nope`)).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(await post.json()).toEqual({ error: { code: "method_not_allowed", message: expect.any(String) } });

    // a second process on the same database waits for the lock: it serves its endpoints with leader 0
    const standby = startIndexer(env);
    procs.push(standby);
    const standbyPort = await until(() => portOf(standby), 60_000, "the standby's metrics port");
    await until(() => standby.lines.some((l) => l.msg === "another indexer holds the lock for this stream; waiting"), 60_000, "the standby to wait");
    const waiting = await scrape(standbyPort);
    expect(waiting.get("agent_ledger_indexer_leader")).toBe(0);
    expect(waiting.get("agent_ledger_indexer_batches_total")).toBe(0);
    expect(await (await fetch(`http://127.0.0.1:${standbyPort}/healthz`)).json()).toMatchObject({ ok: true, leader: false });
  }, 300_000);

  it("a standby takes over within 10 s of the leader's SIGKILL; the ledger equals a clean run (nothing missed or doubled)", async () => {
    const [shared, clean] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      const env = {
        DATABASE_URL: shared.url,
        TEMPO_RPC_URL: anvil.url,
        REGISTRY_FILE: registryFile,
        EXPLORER_BASE_URL: EXPLORER,
        METHODOLOGY_VERSION: "v0.1",
        CHUNK_INITIAL_BLOCKS: "1",
        CHUNK_MAX_BLOCKS: "1",
        LOG_LEVEL: "debug",
        INDEXER_METRICS_PORT: "0",
        POLL_INTERVAL_MS: "100",
      };
      const leader = startIndexer(env);
      procs.push(leader);
      await until(() => leader.lines.filter((l) => l.msg === "batch committed").length >= 3, 60_000, "three batches by the leader");
      const standby = startIndexer(env);
      procs.push(standby);
      const standbyPort = await until(() => portOf(standby), 60_000, "the standby's metrics port");
      await until(() => standby.lines.some((l) => l.msg === "another indexer holds the lock for this stream; waiting"), 60_000, "the standby to wait");
      leader.child.kill("SIGKILL");
      const killedAt = Date.now();
      await leader.exited;
      await until(() => standby.lines.some((l) => l.msg === "indexer lock acquired"), 30_000, "the standby to take over");
      const tookOverMs = Date.now() - killedAt;
      expect(tookOverMs).toBeLessThan(10_000);
      expect((await scrape(standbyPort)).get("agent_ledger_indexer_leader")).toBe(1);
      await until(() => standby.lines.some((l) => l.msg === "caught up with the head; following"), 120_000, "the standby to catch up");

      const rows = async (url: string) => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          return (await c.query("SELECT agent_id, kind, amount_wei::text, tx_hash, log_index FROM agent_events ORDER BY source_block, log_index, agent_id"))
            .rows;
        } finally {
          await c.end();
        }
      };
      await loadRegistry(clean.url, JSON.parse(await fs.readFile(registryFile, "utf8")));
      await indexUntil(clean.url, anvil.url, head);
      const [got, want] = await Promise.all([rows(shared.url), rows(clean.url)]);
      expect(want.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
      console.log(`standby took over ${tookOverMs} ms after the leader's SIGKILL`);
    } finally {
      await Promise.allSettled([shared.drop(), clean.drop()]);
    }
  }, 300_000);

  it("counts failed RPC calls by method while the node is unreachable", async () => {
    const other = await createTestDatabase();
    try {
      const p = startIndexer({
        DATABASE_URL: other.url,
        TEMPO_RPC_URL: "http://127.0.0.1:9/",
        REGISTRY_FILE: registryFile,
        EXPLORER_BASE_URL: EXPLORER,
        METHODOLOGY_VERSION: "v0.1",
        LOG_LEVEL: "info",
        INDEXER_METRICS_PORT: "0",
      });
      procs.push(p);
      const port = await until(() => portOf(p), 60_000, "the metrics port");
      const metrics = await until(
        async () => {
          const m = await scrape(port);
          return (m.get('agent_ledger_indexer_rpc_errors_total{method="eth_chainId"}') ?? 0) >= 2 ? m : null;
        },
        60_000,
        "two failed eth_chainId calls",
      );
      expect(metrics.get("agent_ledger_indexer_leader")).toBe(0);
      expect(Number.isNaN(metrics.get("agent_ledger_indexer_lag_blocks"))).toBe(true);
      p.child.kill("SIGTERM");
      await p.exited;
    } finally {
      await other.drop();
    }
  }, 120_000);

  it("a connection PostgreSQL closes ends the indexer with a fatal log line and exit 1, not an unhandled 'error' event", async () => {
    const other = await createTestDatabase();
    try {
      const p = startIndexer({
        DATABASE_URL: other.url,
        TEMPO_RPC_URL: anvil.url,
        REGISTRY_FILE: registryFile,
        EXPLORER_BASE_URL: EXPLORER,
        METHODOLOGY_VERSION: "v0.1",
        LOG_LEVEL: "info",
        INDEXER_METRICS_PORT: "-1",
        POLL_INTERVAL_MS: "100",
      });
      procs.push(p);
      await until(() => p.lines.find((l) => l.msg === "indexer lock acquired"), 60_000, "the indexer lock");
      const admin = new pg.Client({ connectionString: other.url });
      await admin.connect();
      try {
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'agent-ledger-indexer'",
        );
      } finally {
        await admin.end();
      }
      expect(await Promise.race([p.exited, new Promise((r) => setTimeout(() => r("still running"), 15_000))])).toBe(1);
      expect(p.stderr()).not.toContain("Unhandled 'error' event");
      expect(p.lines.some((l) => l.level === 60)).toBe(true); // "database connection lost; stopping" (idle) or "indexer failed" (mid-query)
    } finally {
      await other.drop();
    }
  }, 120_000);
});
