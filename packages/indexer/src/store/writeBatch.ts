import { computeRollups, type EventDraft, type RawLog, type RollupDeltas } from "@agent-ledger/core";
import type pg from "pg";
import { escapeLiteral } from "pg";
import { inlineParams } from "./inlineParams.ts";
import { rollupCtes } from "./rollupSql.ts";
import { runScript } from "./runScript.ts";
import { toPgArray } from "./toPgArray.ts";
import { copyField as f, toCopyText } from "./toCopyText.ts";
import { rollupParams, UPSERT_ROLLUPS } from "./upsertRollups.ts";

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
SELECT u.bn, u.bh, timestamptz 'epoch' + u.ts * interval '1 millisecond', u.tx, u.ti, u.li, u.addr, u.t0, u.t1, u.t2, u.t3, u.data
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
  AS u(bn, bh, ts, tx, ti, li, addr, t0, t1, t2, t3, data)
ON CONFLICT (tx_hash, log_index) DO NOTHING`;

const RAW_LOG_COLUMNS = "block_number, block_hash, block_timestamp, tx_hash, tx_index, log_index, address, topic0, topic1, topic2, topic3, data";

const EVENT_COLUMNS = `ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category,
    kind, amount_wei, token_address, tx_hash, log_index, source_block, methodology_version, routed_to_address, routed_to_label,
    routed_fingerprint, explorer_url, attribution, client_fingerprint, channel_id`;

/**
 * The parameter arrays eventColumns builds ($1…$22, in its order) and their names in `unnest(…) AS u(…)`: shared by the
 * small-batch insert and rematch's upsert. The last is the row's position in the matcher's output.
 */
export const EVENT_ARRAYS = `$1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::text[], $11::text[], $12::int[], $13::bigint[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[],
    $19::text[], $20::text[], $21::text[], $22::int[]`;
export const EVENT_ARRAY_NAMES = `ts, agent_id, agent_label, agent_category, cp_addr, cp_label, cp_cat, kind, amount, token, tx, li, block, version,
      routed_addr, routed_label, routed_fp, url, attribution, client_fp, channel, ord`;
const EVENT_ARRAY_COUNT = 22;

// Small batches, and rows partly stored already: rows and their rollups in one statement from parameter arrays;
// the rollup CTEs read exactly the rows this insert created.
const INSERT_EVENTS_WITH_ROLLUPS = `
WITH ins AS (
  INSERT INTO agent_events (${EVENT_COLUMNS})
  SELECT timestamptz 'epoch' + u.ts * interval '1 millisecond', u.agent_id, u.agent_label, u.agent_category, u.cp_addr, u.cp_label, u.cp_cat, u.kind, u.amount::numeric,
    u.token, u.tx, u.li, u.block, u.version, u.routed_addr, u.routed_label, u.routed_fp, u.url, u.attribution, u.client_fp, u.channel
  FROM unnest(${EVENT_ARRAYS})
    AS u(${EVENT_ARRAY_NAMES})
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
    cols[2]![i] = l.blockTimestampMs ?? l.blockTimestamp * 1000; // milliseconds (the node's, when it gives them)
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

/** Column arrays for INSERT_EVENTS_WITH_ROLLUPS; the 22nd is the row's position, so ids follow the matcher's order. */
export function eventColumns(rows: readonly EventDraft[]): string[] {
  const n = rows.length;
  const cols = Array.from({ length: EVENT_ARRAY_COUNT }, () => new Array<string | number | null>(n));
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    cols[0]![i] = r.ts.getTime(); // milliseconds
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
    cols[18]![i] = r.attribution;
    cols[19]![i] = r.clientFingerprint;
    cols[20]![i] = r.channelId;
    cols[21]![i] = i;
  }
  return cols.map(toPgArray);
}

/**
 * Below this many raw logs a batch is written with two statements from parameter arrays (fewer round trips: the
 * latency of a live block matters more than throughput); from it on, by COPY (throughput: backfills).
 */
export const BULK_MIN_LOGS = 1_000;

/** A batch made ready for the database: CPU work done in Node, so it can overlap the previous write. */
export interface PreparedBatch {
  logs: readonly RawLog[];
  rows: readonly EventDraft[];
  /** COPY path (large batches) or parameter arrays (small ones). */
  bulk: boolean;
  /** What the rows add to the rollups, if every one of them is new (COPY path). */
  rollups: RollupDeltas | null;
  /** COPY text, generated lazily while the COPY streams (see toCopyText). */
  rawLogCopy: (() => Iterable<string>) | null;
  eventCopy: (() => Iterable<string>) | null;
}

/** COPY text lines for `raw_logs` (columns as RAW_LOG_COLUMNS); hex is lowercased. */
export function rawLogCopyText(logs: readonly RawLog[]): Iterable<string> {
  let lastTs = -1;
  let iso = "";
  return toCopyText(logs.length, (i) => {
    const l = logs[i]!;
    const t = l.topics;
    const ms = l.blockTimestampMs ?? l.blockTimestamp * 1000;
    if (ms !== lastTs) {
      lastTs = ms; // logs of one block share it
      iso = new Date(ms).toISOString();
    }
    // Text from the node is escaped like any other input: a malformed field fails its column, never shifts the row.
    return `${l.blockNumber}\t${f(l.blockHash.toLowerCase())}\t${iso}\t${f(l.txHash.toLowerCase())}\t${l.txIndex}\t${l.logIndex}\t${f(l.address.toLowerCase())}\t${f(t[0]?.toLowerCase())}\t${f(t[1]?.toLowerCase())}\t${f(t[2]?.toLowerCase())}\t${f(t[3]?.toLowerCase())}\t${f(l.data.toLowerCase())}`;
  });
}

/** COPY text lines for `agent_events` (columns as EVENT_COLUMNS), in the matcher's order. */
export function eventCopyText(rows: readonly EventDraft[]): Iterable<string> {
  let lastMs = Number.NaN;
  let iso = "";
  return toCopyText(rows.length, (i) => {
    const r = rows[i]!;
    if (r.ts.getTime() !== lastMs) {
      lastMs = r.ts.getTime();
      iso = r.ts.toISOString();
    }
    return `${iso}\t${f(r.agentId)}\t${f(r.agentLabel)}\t${f(r.agentCategory)}\t${f(r.counterpartyAddress)}\t${f(r.counterpartyLabel)}\t${f(r.counterpartyCategory)}\t${f(r.kind)}\t${r.amountWei}\t${f(r.tokenAddress)}\t${f(r.txHash)}\t${r.logIndex}\t${r.sourceBlock}\t${f(r.methodologyVersion)}\t${f(r.routedToAddress)}\t${f(r.routedToLabel)}\t${f(r.routedFingerprint)}\t${f(r.explorerUrl)}\t${f(r.attribution)}\t${f(r.clientFingerprint)}\t${f(r.channelId)}`;
  });
}

export function prepareBatch(logs: readonly RawLog[], rows: readonly EventDraft[], options: { bulk?: boolean } = {}): PreparedBatch {
  const bulk = options.bulk ?? logs.length >= BULK_MIN_LOGS;
  if (!bulk) return { logs, rows, bulk, rollups: null, rawLogCopy: null, eventCopy: null };
  return {
    logs,
    rows,
    bulk,
    rollups: rows.length ? computeRollups(rows) : null,
    rawLogCopy: logs.length ? () => rawLogCopyText(logs) : null,
    eventCopy: rows.length ? () => eventCopyText(rows) : null,
  };
}

const UNIQUE_VIOLATION = "23505";

const UPSERT_CHECKPOINT = `
INSERT INTO indexer_checkpoints (id, chain_id, start_block, last_block, last_block_hash, updated_at)
VALUES ($1, $2, $3, $4, $5, now())
ON CONFLICT (id) DO UPDATE SET last_block = EXCLUDED.last_block, last_block_hash = EXCLUDED.last_block_hash, updated_at = now()
WHERE indexer_checkpoints.last_block = $6`;

type Batch = {
  streamId: string;
  chainId: number;
  startBlock: bigint;
  previousBlock: bigint;
  toBlock: bigint;
  toBlockHash: string | null;
  prepared: PreparedBatch;
};

/** UPSERT_CHECKPOINT's parameters: as values of the idempotent path, inlined (inlineParams) in the COPY script. */
function checkpointParams(batch: Batch): (string | null)[] {
  return [batch.streamId, String(batch.chainId), batch.startBlock.toString(), batch.toBlock.toString(), batch.toBlockHash, batch.previousBlock.toString()];
}

/**
 * Stores one indexed block range atomically: raw logs, matched rows with their rollups, the checkpoint, and a NOTIFY
 * (delivered on commit) naming the new rows. Runs on the client that holds the indexer lock.
 * Invariant: the checkpoint moves from exactly `previousBlock` to `toBlock`, or nothing is written.
 */
export async function writeBatch(client: pg.ClientBase, batch: Batch): Promise<BatchResult> {
  if (batch.prepared.bulk) {
    try {
      return await writeByScript(client, batch);
    } catch (error) {
      // A log or row of the range is stored already (the range is indexed again after a manual checkpoint reset):
      // the COPY failed on a key and its transaction was undone. The idempotent statements below store what is
      // missing, and their rollups count exactly the rows they insert.
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    }
  }
  return writeIdempotent(client, batch);
}

/** SQLSTATE the checkpoint claim of the COPY script raises when another writer moved the checkpoint. */
const CHECKPOINT_CONFLICT = "AL409";

const L = escapeLiteral;

/**
 * `body` dollar-quoted with a tag it does not contain: the body holds literals of outside text (the block hash comes
 * from the node), which must not be able to end the quoting.
 */
function dollarQuote(body: string): string {
  let tag = "$claim$";
  for (let i = 0; body.includes(tag); i++) tag = `$claim${i}$`;
  return `${tag}${body}${tag}`;
}

/**
 * The COPY path as one script, sent in one go with its COPY data behind it (runScript): PostgreSQL works through the
 * whole batch without waiting for this process, whose main thread meanwhile parses and matches the next range. Every
 * round trip of a batch used to wait for that thread (BENCHMARKS.md, bench:indexer; the runs are in its git history).
 * Order: the checkpoint is claimed first, so a conflicting writer is found before any work (its row stays locked until
 * commit); every log and row is new, or a COPY fails on its key (see writeBatch); the rows' ids are the COPY's own
 * nextvals, in input order (another session's nextval may leave gaps between them, never reorder them), so the batch's
 * last id is the session's currval and its first is found by the first row's key.
 */
async function writeByScript(client: pg.ClientBase, batch: Batch): Promise<BatchResult> {
  const { prepared } = batch;
  const to = batch.toBlock.toString();
  const statements = [
    "BEGIN",
    `DO ${dollarQuote(`BEGIN
  ${inlineParams(UPSERT_CHECKPOINT, checkpointParams(batch))};
  IF NOT FOUND THEN RAISE EXCEPTION 'checkpoint moved' USING ERRCODE = '${CHECKPOINT_CONFLICT}'; END IF;
END`)}`,
  ];
  const copies: Iterable<string>[] = [];
  if (prepared.rawLogCopy) {
    statements.push(`COPY raw_logs (${RAW_LOG_COLUMNS}) FROM STDIN`);
    copies.push(prepared.rawLogCopy());
  }
  const first = prepared.rows[0];
  if (prepared.eventCopy && first) {
    statements.push(`COPY agent_events (${EVENT_COLUMNS}) FROM STDIN`);
    copies.push(prepared.eventCopy());
    statements.push(`WITH ids AS (
  SELECT (SELECT id::text FROM agent_events WHERE tx_hash = ${L(first.txHash)} AND log_index = ${first.logIndex}
            AND agent_id = ${L(first.agentId)} AND methodology_version = ${L(first.methodologyVersion)}) AS first,
         currval(pg_get_serial_sequence('agent_events', 'id'))::text AS last)
SELECT first, last, pg_notify(${L(EVENTS_CHANNEL)},
  json_build_object('first_id', first, 'last_id', last, 'count', ${prepared.rows.length}, 'to_block', ${L(to)})::text) FROM ids`);
    // Rollup deltas from Node are exact here: every row is inserted, or the script fails.
    if (prepared.rollups) statements.push(inlineParams(UPSERT_ROLLUPS, rollupParams(prepared.rollups)));
  }
  statements.push("COMMIT");
  let rows;
  try {
    rows = await runScript(client, statements.join(";\n"), copies);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    if ((error as { code?: string }).code === CHECKPOINT_CONFLICT) throw new CheckpointConflictError(batch.streamId, batch.previousBlock);
    throw error;
  }
  const ids = first ? rows[0]! : null;
  return {
    rawLogsInserted: prepared.logs.length,
    eventsInserted: prepared.rows.length,
    firstEventId: ids ? BigInt(ids[0]!) : null,
    lastEventId: ids ? BigInt(ids[1]!) : null,
  };
}

/** Parameter arrays and ON CONFLICT: small batches, and ranges some of whose logs or rows are stored already. */
async function writeIdempotent(client: pg.ClientBase, batch: Batch): Promise<BatchResult> {
  const { prepared } = batch;
  // BEGIN and the checkpoint are queued together (the driver sends the second once it has read the first's reply).
  // The checkpoint comes first so that a conflicting writer is found before any work; its row stays locked until commit.
  const begin = client.query("BEGIN");
  const checkpoint = client.query(UPSERT_CHECKPOINT, checkpointParams(batch));
  checkpoint.catch(() => {}); // awaited below unless BEGIN fails first
  try {
    await begin;
    if ((await checkpoint).rowCount !== 1) throw new CheckpointConflictError(batch.streamId, batch.previousBlock);
    let rawInserted = 0;
    let events = { n: 0, first: null as string | null, last: null as string | null };
    if (prepared.logs.length) rawInserted = (await client.query(INSERT_RAW_LOGS, rawLogColumns(prepared.logs))).rowCount ?? 0;
    if (prepared.rows.length) events = (await client.query(INSERT_EVENTS_WITH_ROLLUPS, eventColumns(prepared.rows))).rows[0];
    if (events.n > 0) {
      const payload: EventsNotification = { first_id: events.first!, last_id: events.last!, count: events.n, to_block: batch.toBlock.toString() };
      await client.query("SELECT pg_notify($1, $2)", [EVENTS_CHANNEL, JSON.stringify(payload)]);
    }
    await client.query("COMMIT");
    return {
      rawLogsInserted: rawInserted,
      eventsInserted: events.n,
      firstEventId: events.first === null ? null : BigInt(events.first),
      lastEventId: events.last === null ? null : BigInt(events.last),
    };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
