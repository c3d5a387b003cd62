import { createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { parseRegistry } from "@agent-ledger/core";
import { pino } from "pino";
import { createRpcClient } from "../src/rpc/createRpcClient.ts";
import { createIndexer, type IndexerDeps } from "../src/sync/createIndexer.ts";

export const EXPLORER = "https://explore.test";
export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

/** Loads a registry document (same format as registry/*.json) into the database. */
export async function loadRegistry(databaseUrl: string, document: unknown, source = "registry:test.json") {
  const pool = createPgPool(databaseUrl, { max: 1 });
  try {
    return await loadRegistryIntoDb(pool, parseRegistry(document), source);
  } finally {
    await pool.end();
  }
}

/** Runs the indexer in-process until its checkpoint reaches `stopAtBlock`. */
export async function indexUntil(
  databaseUrl: string,
  rpcUrl: string,
  stopAtBlock: bigint,
  options: {
    chunk?: Partial<{ initial: number; min: number; max: number; targetMs: number; maxLogs: number }>;
    onBatch?: IndexerDeps["onBatch"];
    log?: IndexerDeps["log"];
    fetchAhead?: number;
    methodologyVersion?: string;
  } = {},
) {
  const pool = createPgPool(databaseUrl, { max: 2 });
  const client = await pool.connect();
  try {
    const indexer = createIndexer(
      { rpc: createRpcClient(rpcUrl), client, loadContext: () => loadMatchContext(pool, EXPLORER), log: options.log ?? silentLog, onBatch: options.onBatch },
      {
        startBlock: 0n,
        confirmations: 0,
        chunk: { initial: 100, min: 1, max: 10_000, targetMs: 2_000, maxLogs: 50_000, ...options.chunk },
        pollIntervalMs: 50,
        stopAtBlock,
        fetchAhead: options.fetchAhead,
        methodologyVersion: options.methodologyVersion,
      },
    );
    await indexer.run(AbortSignal.timeout(120_000));
  } finally {
    client.release();
    await pool.end();
  }
}
