import { createRpcClient, RpcError, type RpcOutcome } from "@agent-ledger/runtime";
import { DevnetError } from "./errors.ts";

export type RpcCall = { method: string; params?: unknown[] };
export type RpcResult = RpcOutcome;

/**
 * A JSON-RPC batch through the project's one client (runtime createRpcClient): each call's `{ result }` or `{ error }` in
 * call order (a per-call error is an answer, not a throw). An HTTP error or an answer that is not a batch throws
 * DevnetError; no answer at all (timeout, refused connection) throws the client's RpcError.
 */
export async function rpcRequest(url: string, calls: RpcCall[], timeoutMs = 30_000): Promise<RpcResult[]> {
  try {
    return await createRpcClient(url, { timeoutMs }).batchSettled(calls);
  } catch (error) {
    if (!(error instanceof RpcError) || error.kind === "transport") throw error;
    if (error.kind === "http") throw new DevnetError(`RPC ${url} answered HTTP ${error.status}`, { cause: error });
    throw new DevnetError(`RPC ${url} did not answer the batch: ${error.reason}`, { cause: error });
  }
}
