import { getBackoffDelay } from "@agent-ledger/core";
import type { RpcClient } from "@agent-ledger/runtime";
import { sleep } from "./sync/sleep.ts";

/**
 * The chain id the RPC serves (eth_chainId), asked until it answers (backoff 250 ms … 30 s, `onRetry` told each
 * failure) or `signal` aborts (then the last error is thrown).
 */
export async function readChainId(rpc: RpcClient, signal: AbortSignal, onRetry: (error: Error, attempt: number, retryInMs: number) => void): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return Number(BigInt(await rpc.request<string>("eth_chainId", [])));
    } catch (error) {
      if (signal.aborted) throw error;
      const delay = getBackoffDelay(attempt, { baseMs: 250, maxMs: 30_000, random: Math.random() });
      onRetry(error as Error, attempt, delay);
      await sleep(delay, signal);
      if (signal.aborted) throw error;
    }
  }
}
