// The JSON-RPC client lives in core (shared with the API); the indexer keeps its import path.
export { createRpcClient, RpcError, type RpcClient } from "@agent-ledger/core";
