import { countTokens, createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { startOpsServer } from "@agent-ledger/runtime";
import { explorerBase, parseIndexerEnv } from "./env.ts";
import { assertRegistryChain } from "./assertRegistryChain.ts";
import { assertRegistryFits } from "./assertRegistryFits.ts";
import { loadRegistryFile } from "./loadRegistryFile.ts";
import { createLogger } from "./logger.ts";
import { readChainId } from "./readChainId.ts";
import { registryFileForChain } from "./registryFileForChain.ts";
import { createRpcClient } from "./rpc/createRpcClient.ts";
import { createIndexer } from "./sync/createIndexer.ts";
import { createIndexerMetrics } from "./ops/createIndexerMetrics.ts";

const env = parseIndexerEnv();
const log = createLogger("indexer", env.LOG_LEVEL);
// two connections: one holds the indexer lock and writes, the other loads the registry and the match context
const pool = createPgPool(env.DATABASE_URL, { max: 2, applicationName: "agent-ledger-indexer" });
const controller = new AbortController();
// A connection PostgreSQL closes (restart, failover, pg_terminate_backend) ends the indexer with a fatal line and exit
// 1 (its supervisor restarts it; the lock went with the session, so a standby may already lead), never an unhandled
// 'error' event. An idle pooled connection that drops is only logged: the pool opens another.
const connectionLost = (error: Error) => {
  log.fatal({ err: error }, "database connection lost; stopping");
  process.exitCode = 1;
  controller.abort();
};
pool.on("error", (error) => log.warn({ err: error }, "an idle database connection was closed"));
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    log.info({ signal: sig }, "stopping after the current batch");
    controller.abort();
  });
}

// /metrics and /healthz on their own port from the start: a standby waiting for the lock is scraped too (leader 0).
const metrics = createIndexerMetrics();
const opsServer =
  env.INDEXER_METRICS_PORT >= 0
    ? await startOpsServer({
        port: env.INDEXER_METRICS_PORT,
        host: env.INDEXER_METRICS_HOST,
        metrics: () => metrics.registry.metrics(),
        contentType: metrics.registry.contentType,
        status: metrics.status,
      })
    : null;
if (opsServer) log.info({ host: env.INDEXER_METRICS_HOST, port: opsServer.port }, "metrics server listening");

try {
  const rpc = createRpcClient(env.TEMPO_RPC_URL, { timeoutMs: env.RPC_TIMEOUT_MS });
  // The chain decides the default registry (REGISTRY_FILE unset) and must be the one a v3 registry names
  // (docs/registry.md); asked only when needed, so REGISTRY_FILE with a v1/v2 file starts as before.
  let rpcChainId: number | undefined;
  const chainId = async () =>
    (rpcChainId ??= await readChainId(rpc, controller.signal, (error, attempt, retryInMs) => {
      metrics.observer.rpcError?.("eth_chainId");
      log.warn({ err: error.message, attempt, retryInMs }, "eth_chainId failed; retrying");
    }));
  const registryFile = env.REGISTRY_FILE ?? registryFileForChain(await chainId(), undefined);
  const { registry, source } = await loadRegistryFile(registryFile);
  if (registry.chainId !== null) assertRegistryChain(registry.chainId, await chainId(), registryFile);
  const loaded = await loadRegistryIntoDb(pool, registry, source);
  log.info({ file: registryFile, chosenBy: env.REGISTRY_FILE ? "REGISTRY_FILE" : "chain id", chainId: rpcChainId, ...loaded }, "registry loaded");
  assertRegistryFits(env.METHODOLOGY_VERSION, await countTokens(pool));

  const client = await pool.connect();
  client.on("error", connectionLost);
  try {
    const indexer = createIndexer(
      {
        rpc,
        client,
        loadContext: () => loadMatchContext(pool, explorerBase(env)),
        log,
        observer: metrics.observer,
      },
      {
        startBlock: BigInt(env.START_BLOCK),
        confirmations: env.CONFIRMATIONS,
        methodologyVersion: env.METHODOLOGY_VERSION,
        chunk: {
          initial: env.CHUNK_INITIAL_BLOCKS,
          min: env.CHUNK_MIN_BLOCKS,
          max: env.CHUNK_MAX_BLOCKS,
          targetMs: env.CHUNK_TARGET_MS,
          maxLogs: env.CHUNK_MAX_LOGS,
        },
        pollIntervalMs: env.POLL_INTERVAL_MS,
        storeAllLogs: env.STORE_ALL_LOGS,
        fetchAhead: env.FETCH_AHEAD,
        stopAtBlock: process.env.INDEXER_STOP_AT_BLOCK ? BigInt(process.env.INDEXER_STOP_AT_BLOCK) : undefined,
      },
    );
    await indexer.run(controller.signal);
  } finally {
    client.release();
  }
} catch (error) {
  log.fatal({ err: error }, "indexer failed");
  process.exitCode = 1;
} finally {
  await Promise.allSettled([pool.end(), opsServer?.close()]);
}
