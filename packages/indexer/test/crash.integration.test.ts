import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { DEV_PRIVATE_KEYS, createDevnetClient, sendBulkTransfers, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPLORER, indexUntil, loadRegistry } from "./helpers.ts";

// Kill -9 the indexer process in the middle of a backfill, restart it, and prove that the ledger is
// identical to one built in a single clean run; a second indexer started alongside writes nothing.

const ROOT = path.resolve(import.meta.dirname, "../../..");
const MAIN = path.join(ROOT, "packages/indexer/src/main.ts");
const senders = DEV_PRIVATE_KEYS.slice(1, 5);
const recipients = DEV_PRIVATE_KEYS.slice(5, 9).map((k) => privateKeyToAccount(k).address.toLowerCase() as `0x${string}`);

interface Proc {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

function startIndexer(env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
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
  return { child, lines, exited };
}

async function until(check: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const count = (p: Proc, msg: string) => p.lines.filter((l) => l.msg === msg).length;

async function ledger(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const events = await c.query(`SELECT agent_id, kind, amount_wei::text, counterparty_address, tx_hash, log_index, source_block::text, ts
                                  FROM agent_events ORDER BY source_block, log_index, agent_id`);
    const raw = await c.query("SELECT tx_hash, log_index, data FROM raw_logs ORDER BY block_number, log_index");
    const dupes = await c.query("SELECT count(*)::int AS n FROM (SELECT 1 FROM agent_events GROUP BY tx_hash, log_index, agent_id HAVING count(*) > 1) d");
    const cp = await c.query("SELECT last_block::text FROM indexer_checkpoints");
    return { events: events.rows, raw: raw.rows, dupes: dupes.rows[0].n as number, checkpoint: cp.rows[0]?.last_block as string | undefined };
  } finally {
    await c.end();
  }
}

describe("indexer crash safety", () => {
  let anvil: AnvilInstance;
  let crashed: Awaited<ReturnType<typeof createTestDatabase>>;
  let clean: Awaited<ReturnType<typeof createTestDatabase>>;
  let registryFile: string;
  let head: bigint;
  let registry: unknown;

  beforeAll(async () => {
    [anvil, crashed, clean] = await Promise.all([startAnvil(), createTestDatabase(), createTestDatabase()]);
    // Automine mines what the pool holds, so small submissions give many blocks: the backfill below is
    // then well over a hundred small batches (one or two blocks each).
    for (let i = 0; i < 100; i++) await sendBulkTransfers({ rpcUrl: anvil.url, count: 4, senders, recipients, withMemo: true, batchSize: 4 });
    head = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    registryFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "ledger-")), "registry.json");
    registry = {
      registry_version: 1,
      network: "devnet",
      entities: [
        ...senders.map((k, i) => ({ id: `sender-${i}`, label: `Sender ${i}`, category: "agent", wallets: [privateKeyToAccount(k).address.toLowerCase()] })),
        ...recipients.map((a, i) => ({ id: `recipient-${i}-mpp`, label: `Recipient ${i}`, category: "service", wallets: [a] })),
      ],
    };
    await fs.writeFile(registryFile, JSON.stringify(registry));
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([anvil?.stop(), crashed?.drop(), clean?.drop()]);
  });

  it("SIGKILL mid-backfill, restart: nothing missing, nothing duplicated; a concurrent indexer waits and writes nothing", async () => {
    expect(head).toBeGreaterThan(100n);
    const env = {
      DATABASE_URL: crashed.url,
      TEMPO_RPC_URL: anvil.url,
      REGISTRY_FILE: registryFile,
      EXPLORER_BASE_URL: EXPLORER,
      METHODOLOGY_VERSION: "v0.1",
      CHUNK_INITIAL_BLOCKS: "1",
      CHUNK_MAX_BLOCKS: "2",
      INDEXER_STOP_AT_BLOCK: head.toString(),
      LOG_LEVEL: "debug",
      INDEXER_METRICS_PORT: "0", // each process its own free port (several run at once)
    };
    const first = startIndexer(env);
    await until(() => count(first, "batch committed") >= 5, 60_000, "five committed batches");
    first.child.kill("SIGKILL");
    await first.exited;
    const afterCrash = await ledger(crashed.url);
    expect(BigInt(afterCrash.checkpoint!)).toBeLessThan(head); // really mid-backfill

    // Restart without a stop block: it catches up, then keeps following the head (holding the lock).
    const { INDEXER_STOP_AT_BLOCK: _stop, ...followEnv } = env;
    const second = startIndexer(followEnv);
    await until(() => count(second, "caught up with the head; following") === 1, 60_000, "the restarted indexer to catch up");
    expect(count(second, "batch committed")).toBeGreaterThan(0);

    // A concurrent indexer on the same database waits for the lock and writes nothing meanwhile.
    const third = startIndexer(env);
    await until(() => count(third, "another indexer holds the lock for this stream; waiting") === 1, 30_000, "the concurrent indexer to wait");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(count(third, "batch committed")).toBe(0);
    expect(count(third, "indexer lock acquired")).toBe(0);

    // A graceful stop of the holder releases the lock; the waiter takes it, finds nothing to do, exits.
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(await third.exited).toBe(0);
    expect(count(third, "indexer lock acquired")).toBe(1);
    expect(count(third, "batch committed")).toBe(0);

    await loadRegistry(clean.url, registry);
    await indexUntil(clean.url, anvil.url, head); // the reference: one uninterrupted in-process run
    const [got, want] = await Promise.all([ledger(crashed.url), ledger(clean.url)]);
    expect(got.dupes).toBe(0);
    expect(got.checkpoint).toBe(head.toString());
    expect(got.events.length).toBeGreaterThanOrEqual(800); // 400 payments × (sender row + recipient row)
    expect(got.events).toEqual(want.events);
    expect(got.raw).toEqual(want.raw);
  }, 180_000);
});
