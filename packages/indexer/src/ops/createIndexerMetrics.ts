import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { IndexerObserver } from "../sync/createIndexer.ts";

/**
 * The indexer's Prometheus metrics in their own registry (docs/operations.md lists them):
 *   agent_ledger_indexer_leader                          1 while this process holds the stream's lock (0: standby)
 *   agent_ledger_indexer_chain_head_block                newest block the node reported (eth_blockNumber)
 *   agent_ledger_indexer_checkpoint_block                last block committed by this process (or read at take-over)
 *   agent_ledger_indexer_lag_blocks                      head minus checkpoint (NaN until both are known)
 *   agent_ledger_indexer_last_batch_timestamp_seconds    Unix time of the last committed batch
 *   agent_ledger_indexer_logs_fetched_total              logs fetched (rate() = logs/s)
 *   agent_ledger_indexer_rows_written_total              agent_events rows inserted
 *   agent_ledger_indexer_batches_total                   batches committed
 *   agent_ledger_indexer_batch_write_seconds             time to write and commit one batch
 *   agent_ledger_indexer_rpc_errors_total{method}        failed JSON-RPC calls (each one is retried)
 * plus the prom-client process defaults, prefixed agent_ledger_indexer_.
 */
export function createIndexerMetrics(options: { defaults?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaults !== false) collectDefaultMetrics({ register: registry, prefix: "agent_ledger_indexer_" });
  const leader = new Gauge({
    name: "agent_ledger_indexer_leader",
    help: "1 while this process holds the stream's advisory lock and indexes; 0 while it waits as a standby",
    registers: [registry],
  });
  const head = new Gauge({
    name: "agent_ledger_indexer_chain_head_block",
    help: "Newest block number the node reported (eth_blockNumber)",
    registers: [registry],
  });
  const checkpoint = new Gauge({
    name: "agent_ledger_indexer_checkpoint_block",
    help: "Last block committed to the checkpoint (read at take-over, then per batch)",
    registers: [registry],
  });
  const lag = new Gauge({
    name: "agent_ledger_indexer_lag_blocks",
    help: "Chain head minus the checkpoint, in blocks (NaN until both are known)",
    registers: [registry],
  });
  const lastBatch = new Gauge({
    name: "agent_ledger_indexer_last_batch_timestamp_seconds",
    help: "Unix time of the last committed batch",
    registers: [registry],
  });
  const logs = new Counter({
    name: "agent_ledger_indexer_logs_fetched_total",
    help: "Logs fetched with eth_getLogs (rate() gives logs per second)",
    registers: [registry],
  });
  const rows = new Counter({ name: "agent_ledger_indexer_rows_written_total", help: "agent_events rows inserted", registers: [registry] });
  const batches = new Counter({ name: "agent_ledger_indexer_batches_total", help: "Batches committed", registers: [registry] });
  const writeSeconds = new Histogram({
    name: "agent_ledger_indexer_batch_write_seconds",
    help: "Time to write and commit one batch (raw logs, rows, rollups, checkpoint)",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const rpcErrors = new Counter({
    name: "agent_ledger_indexer_rpc_errors_total",
    help: "Failed JSON-RPC calls by method (each one is retried with backoff)",
    labelNames: ["method"] as const,
    registers: [registry],
  });
  leader.set(0);
  lag.set(Number.NaN);

  let headBlock: bigint | null = null;
  let checkpointBlock: bigint | null = null;
  let isLeader = false;
  const refreshLag = () => {
    if (headBlock !== null && checkpointBlock !== null) lag.set(Number(headBlock > checkpointBlock ? headBlock - checkpointBlock : 0n));
  };

  const observer: IndexerObserver = {
    leader(holds) {
      isLeader = holds;
      leader.set(holds ? 1 : 0);
    },
    head(block) {
      headBlock = block;
      head.set(Number(block));
      refreshLag();
    },
    checkpoint(block) {
      checkpointBlock = block;
      checkpoint.set(Number(block));
      refreshLag();
    },
    batch(info) {
      logs.inc(info.logs);
      rows.inc(info.rows);
      batches.inc();
      writeSeconds.observe(info.writeMs / 1000);
      lastBatch.set(Date.now() / 1000);
    },
    rpcError(method) {
      rpcErrors.inc({ method });
    },
  };

  return {
    registry,
    observer,
    /** What /healthz reports beside `ok`. */
    status: () => ({
      leader: isLeader,
      head: headBlock === null ? null : headBlock.toString(),
      checkpoint: checkpointBlock === null ? null : checkpointBlock.toString(),
      lagBlocks: headBlock !== null && checkpointBlock !== null ? Number(headBlock > checkpointBlock ? headBlock - checkpointBlock : 0n) : null,
    }),
  };
}

export type IndexerMetrics = ReturnType<typeof createIndexerMetrics>;
