import type { EventDraft, RawLog } from "@agent-ledger/core";
import type pg from "pg";
import { rollupCtes } from "./rollupSql.ts";
import { toPgArray } from "./toPgArray.ts";

export const EVENTS_CHANNEL = "agent_events";

/** Payload of the `agent_events` NOTIFY sent when a batch commits rows (ids are inclusive). */
export interface EventsNotification {
  first_id: string;
  last_id: string;
  count: number;
  to_block: string;
}

export interface BatchResult {
  rawLogsInserted: number;
  eventsInserted: number;
  firstEventId: bigint | null;
  lastEventId: bigint | null;
}

export class CheckpointConflictError extends Error {
  constructor(streamId: string, expected: bigint) {
    super(`checkpoint of "${streamId}" is no longer at block ${expected}: another writer advanced it`);
    this.name = "CheckpointConflictError";
  }
}

const INSERT_RAW_LOGS = `
INSERT INTO raw_logs (block_number, block_hash, block_timestamp, tx_hash, tx_index, log_index, address, topic0, topic1, topic2, topic3, data)
SELECT u.bn, u.bh, to_timestamp(u.ts), u.tx, u.ti, u.li, u.addr, u.t0, u.t1, u.t2, u.t3, u.data
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
  AS u(bn, bh, ts, tx, ti, li, addr, t0, t1, t2, t3, data)
ON CONFLICT (tx_hash, log_index) DO NOTHING`;

// Rows and their rollups in one statement: the rollup CTEs read exactly the rows this insert created.
const INSERT_EVENTS = `
WITH ins AS (
  INSERT INTO agent_events (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category,
    kind, amount_wei, token_address, tx_hash, log_index, source_block, methodology_version, routed_to_address, routed_to_label,
    routed_fingerprint, explorer_url)
  SELECT to_timestamp(u.ts), u.agent_id, u.agent_label, u.agent_category, u.cp_addr, u.cp_label, u.cp_cat, u.kind, u.amount::numeric,
    u.token, u.tx, u.li, u.block, u.version, u.routed_addr, u.routed_label, u.routed_fp, u.url
  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::text[], $11::text[], $12::int[], $13::bigint[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::int[])
    AS u(ts, agent_id, agent_label, agent_category, cp_addr, cp_label, cp_cat, kind, amount, token, tx, li, block, version,
      routed_addr, routed_label, routed_fp, url, ord)
  ORDER BY u.ord
  ON CONFLICT (tx_hash, log_index, agent_id, methodology_version) DO NOTHING
  RETURNING *
),
${rollupCtes("ins")}
SELECT count(*)::int AS n, min(id)::text AS first, max(id)::text AS last FROM ins`;

export function rawLogColumns(logs: readonly RawLog[]): string[] {
  const n = logs.length;
  const cols = Array.from({ length: 12 }, () => new Array<string | number | null>(n));
  for (let i = 0; i < n; i++) {
    const l = logs[i]!;
    cols[0]![i] = l.blockNumber.toString();
    cols[1]![i] = l.blockHash.toLowerCase();
    cols[2]![i] = l.blockTimestamp;
    cols[3]![i] = l.txHash.toLowerCase();
    cols[4]![i] = l.txIndex;
    cols[5]![i] = l.logIndex;
    cols[6]![i] = l.address.toLowerCase();
    cols[7]![i] = l.topics[0]?.toLowerCase() ?? null;
    cols[8]![i] = l.topics[1]?.toLowerCase() ?? null;
    cols[9]![i] = l.topics[2]?.toLowerCase() ?? null;
    cols[10]![i] = l.topics[3]?.toLowerCase() ?? null;
    cols[11]![i] = l.data.toLowerCase();
  }
  return cols.map(toPgArray);
}

/** Column arrays for INSERT_EVENTS; the 19th is the row's position, so ids follow the matcher's order. */
export function eventColumns(rows: readonly EventDraft[]): string[] {
  const n = rows.length;
  const cols = Array.from({ length: 19 }, () => new Array<string | number | null>(n));
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    cols[0]![i] = Math.floor(r.ts.getTime() / 1000);
    cols[1]![i] = r.agentId;
    cols[2]![i] = r.agentLabel;
    cols[3]![i] = r.agentCategory;
    cols[4]![i] = r.counterpartyAddress;
    cols[5]![i] = r.counterpartyLabel;
    cols[6]![i] = r.counterpartyCategory;
    cols[7]![i] = r.kind;
    cols[8]![i] = r.amountWei.toString();
    cols[9]![i] = r.tokenAddress;
    cols[10]![i] = r.txHash;
    cols[11]![i] = r.logIndex;
    cols[12]![i] = r.sourceBlock.toString();
    cols[13]![i] = r.methodologyVersion;
    cols[14]![i] = r.routedToAddress;
    cols[15]![i] = r.routedToLabel;
    cols[16]![i] = r.routedFingerprint;
    cols[17]![i] = r.explorerUrl;
    cols[18]![i] = i;
  }
  return cols.map(toPgArray);
}

/**
 * Stores one indexed block range atomically: raw logs, matched rows with their rollups, the checkpoint, and a NOTIFY
 * (delivered on commit) naming the new rows. Runs on the client that holds the indexer lock.
 * Invariant: the checkpoint moves from exactly `previousBlock` to `toBlock`, or nothing is written.
 */
/** A batch turned into SQL parameters: CPU work done in Node, so it can overlap the previous write. */
export interface PreparedBatch {
  rawLogColumns: string[] | null;
  eventColumns: string[] | null;
}

export function prepareBatch(logs: readonly RawLog[], rows: readonly EventDraft[]): PreparedBatch {
  return { rawLogColumns: logs.length ? rawLogColumns(logs) : null, eventColumns: rows.length ? eventColumns(rows) : null };
}

export async function writeBatch(
  client: pg.ClientBase,
  batch: { streamId: string; chainId: number; startBlock: bigint; previousBlock: bigint; toBlock: bigint; toBlockHash: string | null; prepared: PreparedBatch },
): Promise<BatchResult> {
  await client.query("BEGIN");
  try {
    const { prepared } = batch;
    const raw = prepared.rawLogColumns ? await client.query(INSERT_RAW_LOGS, prepared.rawLogColumns) : { rowCount: 0 };
    let events = { n: 0, first: null as string | null, last: null as string | null };
    if (prepared.eventColumns) {
      events = (await client.query(INSERT_EVENTS, prepared.eventColumns)).rows[0];
    }
    const cp = await client.query(
      `INSERT INTO indexer_checkpoints (id, chain_id, start_block, last_block, last_block_hash, updated_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (id) DO UPDATE SET last_block = EXCLUDED.last_block, last_block_hash = EXCLUDED.last_block_hash, updated_at = now()
       WHERE indexer_checkpoints.last_block = $6`,
      [batch.streamId, batch.chainId, batch.startBlock.toString(), batch.toBlock.toString(), batch.toBlockHash, batch.previousBlock.toString()],
    );
    if (cp.rowCount !== 1) throw new CheckpointConflictError(batch.streamId, batch.previousBlock);
    if (events.n > 0) {
      const payload: EventsNotification = { first_id: events.first!, last_id: events.last!, count: events.n, to_block: batch.toBlock.toString() };
      await client.query("SELECT pg_notify($1, $2)", [EVENTS_CHANNEL, JSON.stringify(payload)]);
    }
    await client.query("COMMIT");
    return {
      rawLogsInserted: raw.rowCount ?? 0,
      eventsInserted: events.n,
      firstEventId: events.first === null ? null : BigInt(events.first),
      lastEventId: events.last === null ? null : BigInt(events.last),
    };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
