import { createRpcClient } from "@agent-ledger/runtime";

export interface ChainHeadOptions {
  /** JSON-RPC endpoint of the chain (TEMPO_RPC_URL). */
  rpcUrl: string;
  /** Per-request timeout (default 1 s). */
  timeoutMs?: number;
  /** How long an answer — or a failure — is reused (default 1 s): probes and scrapes never hammer the node. */
  cacheMs?: number;
  /** Monotonic clock in ms (tests). */
  clock?: () => number;
}

export type ChainHead = { ok: true; block: number } | { ok: false; error: string };

/** The chain head by `eth_blockNumber`, cached `cacheMs`, one request in flight at a time (single-flight). */
export function createChainHead(options: ChainHeadOptions): () => Promise<ChainHead> {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const cacheMs = options.cacheMs ?? 1_000;
  const clock = options.clock ?? (() => performance.now());
  let cached: { at: number; value: Promise<ChainHead> } | null = null;

  const rpc = createRpcClient(options.rpcUrl, { timeoutMs });

  async function fetchHead(): Promise<ChainHead> {
    try {
      const result = await rpc.request<unknown>("eth_blockNumber", []);
      if (typeof result !== "string" || !/^0x[0-9a-fA-F]{1,16}$/.test(result)) return { ok: false, error: "eth_blockNumber: malformed result" };
      return { ok: true, block: Number(BigInt(result)) };
    } catch (error) {
      const cause = (error as Error).cause as Error | undefined;
      if (cause?.name === "TimeoutError") return { ok: false, error: `eth_blockNumber: no answer within ${timeoutMs} ms` };
      return { ok: false, error: (error as Error).message };
    }
  }

  return () => {
    const now = clock();
    if (cached && now - cached.at < cacheMs) return cached.value;
    const entry = { at: now, value: fetchHead() };
    cached = entry;
    // The cache period starts when the answer arrives, so a slow node is not asked again at once.
    void entry.value.then(() => {
      entry.at = clock();
    });
    return entry.value;
  };
}
