// Library surface of the indexer, for scripts, benchmarks and other packages' tests.
export { createIndexer, type IndexerDeps, type IndexerOptions } from "./sync/createIndexer.ts";
export { createRpcClient, RpcError, type RpcClient } from "./rpc/createRpcClient.ts";
export { fetchLogs } from "./rpc/fetchLogs.ts";
export { writeBatch, prepareBatch, EVENTS_CHANNEL, type EventsNotification, type BatchResult, type PreparedBatch } from "./store/writeBatch.ts";
export { rebuildRollups } from "./store/rebuildRollups.ts";
export { ROLLUP_TABLES } from "./store/rollupSql.ts";
export { rematch, type RematchResult } from "./rematch.ts";
export { loadRegistryFile } from "./loadRegistryFile.ts";
