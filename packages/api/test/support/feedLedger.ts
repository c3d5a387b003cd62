import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import {
  buildDemoRegistry,
  createDevnetClient,
  createSenderPool,
  demoKeys,
  sendBulkTransfers,
  setupDemo,
  startAnvil,
  type AnvilInstance,
  type DemoKeys,
} from "@agent-ledger/devnet";
import pg from "pg";
import { indexAll } from "./seedDevnetLedger.ts";

// A devnet and a database for live-feed tests: the demo registry (labels optionally padded, to make rows large), and
// `pay(n)`: n real transfers from the demo agents to the direct services, then the real indexer up to the head
// (rows + rollups + NOTIFY in one transaction per batch, exactly as in production).

export interface FeedLedger {
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  anvil: AnvilInstance;
  keys: DemoKeys;
  sql: pg.Client;
  /** Sends `count` transfers (amounts 1000, 1001, … per call; senders alpha, beta, gamma in turn) and indexes them. */
  pay(count: number): Promise<void>;
  /** Live-version row ids greater than `after`, ascending. */
  ids(after?: number): Promise<number[]>;
  maxId(): Promise<number>;
  stop(): Promise<void>;
}

export async function startFeedLedger(options: { labelPadding?: number; blockTime?: number } = {}): Promise<FeedLedger> {
  const db = await createTestDatabase();
  const anvil = await startAnvil(options.blockTime ? { blockTime: options.blockTime } : {});
  let sql: pg.Client | undefined;
  try {
    const keys = demoKeys();
    const client = createDevnetClient({ url: anvil.url });
    await setupDemo({ client, keys, sender: createSenderPool(client) });
    const registry = buildDemoRegistry(keys);
    if (options.labelPadding) {
      for (const e of registry.entities) e.label = `${e.label} ${"~".repeat(options.labelPadding)}`;
    }
    const registryDb = createPgPool(db.url, { max: 1 });
    try {
      await loadRegistryIntoDb(registryDb, parseRegistry(registry), "registry:feed-test.json");
    } finally {
      await registryDb.end();
    }
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const q = sql;

    const senders = keys.agents.map((a) => a.privateKey);
    const recipients = keys.directServices.map((s) => s.address);
    const ledger: FeedLedger = {
      db,
      anvil,
      keys,
      sql: q,
      async pay(count) {
        // automine: small submissions (a flood stalls it); with --block-time one submission is fine
        const batch = options.blockTime ? count : 10;
        for (let sent = 0; sent < count; sent += batch) {
          const n = Math.min(batch, count - sent);
          await sendBulkTransfers({ rpcUrl: anvil.url, count: n, senders, recipients, withMemo: false, batchSize: n, timeoutMs: 60_000 });
        }
        await indexAll(db.url, anvil.url, await client.getBlockNumber({ cacheTime: 0 }));
      },
      async ids(after = 0) {
        const { rows } = await q.query("SELECT id::int AS id FROM agent_events WHERE id > $1 AND methodology_version = 'v0.1' ORDER BY id", [after]);
        return rows.map((r) => r.id as number);
      },
      async maxId() {
        return (await q.query("SELECT coalesce(max(id), 0)::int AS id FROM agent_events")).rows[0].id as number;
      },
      async stop() {
        await q.end();
        await anvil.stop();
        await db.drop();
      },
    };
    return ledger;
  } catch (error) {
    await sql?.end().catch(() => {});
    await anvil.stop();
    await db.drop();
    throw error;
  }
}

/** Polls `check` until it is truthy (every 10 ms), failing with `what` after `timeoutMs`. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
