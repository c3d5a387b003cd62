// The JSON-RPC client lives in runtime (shared with the API and the devnet); the indexer keeps its import path.
export { createRpcClient, RpcError, type RpcClient } from "@agent-ledger/runtime";
