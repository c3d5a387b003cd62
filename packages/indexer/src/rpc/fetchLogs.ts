import { INDEXED_TOPICS, type RawLog } from "@agent-ledger/core";
import type { RpcClient } from "./createRpcClient.ts";

interface JsonLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp?: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
}

const hexToNumber = (h: string) => Number.parseInt(h, 16);

/** Ranges up to this many blocks ask for their headers' milliseconds in parallel with eth_getLogs (see fetchLogs). */
export const MILLIS_PREFETCH_BLOCKS = 32n;

const blockRange = (from: bigint, to: bigint): bigint[] => {
  const blocks: bigint[] = [];
  for (let b = from; b <= to; b++) blocks.push(b);
  return blocks;
};

/** Each block's `timestampMillis` from its header (one batch); null when any header lacks it (the node has none). */
async function blockMillis(rpc: RpcClient, blocks: readonly bigint[]): Promise<Map<bigint, number> | null> {
  const headers = await rpc.batch<{ timestampMillis?: string } | null>(
    blocks.map((b) => ({ method: "eth_getBlockByNumber", params: [`0x${b.toString(16)}`, false] })),
  );
  if (headers.some((h) => !h || typeof h.timestampMillis !== "string")) return null;
  return new Map(blocks.map((b, i) => [b, hexToNumber(headers[i]!.timestampMillis!)]));
}

/**
 * All logs with an indexed topic0 (Transfer, TransferWithMemo, Settlement) from any contract in
 * [fromBlock, toBlock], in chain order. Block timestamps come from the logs when the node includes
 * them (anvil and reth do) and from the block headers otherwise; with `millis.enabled`, also milliseconds from the
 * headers' `timestampMillis` (Tempo), which turns itself off when the node does not provide them.
 */
export async function fetchLogs(rpc: RpcClient, fromBlock: bigint, toBlock: bigint, millis?: { enabled: boolean }): Promise<RawLog[]> {
  // The headers of a short range are asked for together with its logs, not after them: a second round trip per range
  // after eth_getLogs made methodology v0.2's backfill ~20 % slower than v0.1's (bench:indexer, A B A B). A long range
  // (a sparse chain) asks afterwards, only for the blocks that have logs.
  const prefetched = millis?.enabled && toBlock - fromBlock < MILLIS_PREFETCH_BLOCKS ? blockMillis(rpc, blockRange(fromBlock, toBlock)) : null;
  prefetched?.catch(() => {}); // awaited below once the logs are in; a failed eth_getLogs must not leave it unhandled
  const json = await rpc.request<JsonLog[]>("eth_getLogs", [
    { fromBlock: `0x${fromBlock.toString(16)}`, toBlock: `0x${toBlock.toString(16)}`, topics: [[...INDEXED_TOPICS]] },
  ]);
  const logs: RawLog[] = new Array(json.length);
  const missingTimestamps = new Set<string>();
  for (let i = 0; i < json.length; i++) {
    const l = json[i]!;
    if (l.removed) throw new Error(`node returned a removed log in a final range (tx ${l.transactionHash})`);
    if (l.blockTimestamp === undefined) missingTimestamps.add(l.blockNumber);
    logs[i] = {
      blockNumber: BigInt(l.blockNumber),
      blockHash: l.blockHash,
      blockTimestamp: l.blockTimestamp === undefined ? -1 : hexToNumber(l.blockTimestamp),
      txHash: l.transactionHash,
      txIndex: hexToNumber(l.transactionIndex),
      logIndex: hexToNumber(l.logIndex),
      address: l.address,
      topics: l.topics,
      data: l.data,
    };
  }
  if (missingTimestamps.size > 0) {
    const blocks = [...missingTimestamps];
    const headers = await rpc.batch<{ timestamp: string } | null>(blocks.map((b) => ({ method: "eth_getBlockByNumber", params: [b, false] })));
    const ts = new Map(blocks.map((b, i) => [BigInt(b), headers[i] ? hexToNumber(headers[i]!.timestamp) : -1]));
    for (const log of logs) {
      if (log.blockTimestamp < 0) log.blockTimestamp = ts.get(log.blockNumber) ?? -1;
      if (log.blockTimestamp < 0) throw new Error(`no timestamp for block ${log.blockNumber}`);
    }
  }
  // Methodology v0.2 keeps the block time's milliseconds (Tempo headers carry `timestampMillis`): one batch of headers
  // per range with logs. A node whose headers lack it turns the option off for good after the first try.
  if (millis?.enabled && logs.length > 0) {
    const ms = prefetched ? await prefetched : await blockMillis(rpc, [...new Set(logs.map((l) => l.blockNumber))]);
    if (!ms) millis.enabled = false;
    else {
      for (const log of logs) {
        const m = ms.get(log.blockNumber)!;
        if (Math.floor(m / 1000) === log.blockTimestamp) log.blockTimestampMs = m; // same second, or not trusted
      }
    }
  }
  // Invariant: chain order (block, then log index). Nodes return it; the matcher and the store rely on it.
  for (let i = 1; i < logs.length; i++) {
    const a = logs[i - 1]!;
    const b = logs[i]!;
    if (a.blockNumber > b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex >= b.logIndex)) {
      logs.sort((x, y) => (x.blockNumber === y.blockNumber ? x.logIndex - y.logIndex : x.blockNumber < y.blockNumber ? -1 : 1));
      break;
    }
  }
  return logs;
}
