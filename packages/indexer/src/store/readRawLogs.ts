import type { RawLog } from "@agent-ledger/core";
import type pg from "pg";

/** The stored raw logs of blocks [from, to] in chain order, as the matcher takes them (milliseconds kept). */
export async function readRawLogs(client: pg.ClientBase, from: bigint, to: bigint): Promise<RawLog[]> {
  const { rows } = await client.query(
    `SELECT block_number::text, block_hash, floor(extract(epoch FROM block_timestamp))::bigint AS ts,
            floor(extract(epoch FROM block_timestamp) * 1000)::bigint AS ts_ms, tx_hash, tx_index, log_index, address,
            topic0, topic1, topic2, topic3, data
     FROM raw_logs WHERE block_number BETWEEN $1 AND $2 ORDER BY block_number, log_index`,
    [from.toString(), to.toString()],
  );
  return rows.map((r) => ({
    blockNumber: BigInt(r.block_number),
    blockHash: r.block_hash,
    blockTimestamp: Number(r.ts),
    blockTimestampMs: Number(r.ts_ms),
    txHash: r.tx_hash,
    txIndex: r.tx_index,
    logIndex: r.log_index,
    address: r.address,
    topics: [r.topic0, r.topic1, r.topic2, r.topic3].filter((t): t is string => t !== null),
    data: r.data,
  }));
}
