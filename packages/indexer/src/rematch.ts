import { assertMethodologyVersion, matchLogs, type MatchContext } from "@agent-ledger/core";
import type pg from "pg";
import { acquireAdvisoryLock } from "./store/acquireIndexerLock.ts";
import { claimRollupsVersion, recordRollupsVersion } from "./store/claimRollupsVersion.ts";
import { readRawLogs } from "./store/readRawLogs.ts";
import { rebuildRollups } from "./store/rebuildRollups.ts";
import { EVENT_ARRAY_NAMES, EVENT_ARRAYS, eventColumns } from "./store/writeBatch.ts";

export interface RematchResult {
  version: string;
  blocks: { from: string; to: string } | null;
  logs: number;
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

// Upsert keyed on (version, tx, log index, agent): identical rows keep their id and are not rewritten.
const UPSERT_EVENTS = `
WITH src AS (
  SELECT timestamptz 'epoch' + u.ts * interval '1 millisecond' AS ts, u.agent_id, u.agent_label, u.agent_category, u.cp_addr, u.cp_label, u.cp_cat, u.kind,
    u.amount::numeric AS amount, u.token, u.tx, u.li, u.block, u.version, u.routed_addr, u.routed_label, u.routed_fp, u.url,
    u.attribution, u.client_fp, u.channel, u.ord
  FROM unnest(${EVENT_ARRAYS})
    AS u(${EVENT_ARRAY_NAMES})
), up AS (
  INSERT INTO agent_events AS e (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label,
    counterparty_category, kind, amount_wei, token_address, tx_hash, log_index, source_block, methodology_version,
    routed_to_address, routed_to_label, routed_fingerprint, explorer_url, attribution, client_fingerprint, channel_id)
  SELECT ts, agent_id, agent_label, agent_category, cp_addr, cp_label, cp_cat, kind, amount, token, tx, li, block, version,
    routed_addr, routed_label, routed_fp, url, attribution, client_fp, channel FROM src ORDER BY ord
  ON CONFLICT (tx_hash, log_index, agent_id, methodology_version) DO UPDATE SET
    ts = EXCLUDED.ts, agent_label = EXCLUDED.agent_label, agent_category = EXCLUDED.agent_category,
    counterparty_address = EXCLUDED.counterparty_address, counterparty_label = EXCLUDED.counterparty_label,
    counterparty_category = EXCLUDED.counterparty_category, kind = EXCLUDED.kind, amount_wei = EXCLUDED.amount_wei,
    token_address = EXCLUDED.token_address, source_block = EXCLUDED.source_block, routed_to_address = EXCLUDED.routed_to_address,
    routed_to_label = EXCLUDED.routed_to_label, routed_fingerprint = EXCLUDED.routed_fingerprint, explorer_url = EXCLUDED.explorer_url,
    attribution = EXCLUDED.attribution, client_fingerprint = EXCLUDED.client_fingerprint, channel_id = EXCLUDED.channel_id
  WHERE (e.ts, e.agent_label, e.agent_category, e.counterparty_address, e.counterparty_label, e.counterparty_category, e.kind,
         e.amount_wei, e.token_address, e.source_block, e.routed_to_address, e.routed_to_label, e.routed_fingerprint, e.explorer_url,
         e.attribution, e.client_fingerprint, e.channel_id)
    IS DISTINCT FROM
        (EXCLUDED.ts, EXCLUDED.agent_label, EXCLUDED.agent_category, EXCLUDED.counterparty_address, EXCLUDED.counterparty_label,
         EXCLUDED.counterparty_category, EXCLUDED.kind, EXCLUDED.amount_wei, EXCLUDED.token_address, EXCLUDED.source_block,
         EXCLUDED.routed_to_address, EXCLUDED.routed_to_label, EXCLUDED.routed_fingerprint, EXCLUDED.explorer_url,
         EXCLUDED.attribution, EXCLUDED.client_fingerprint, EXCLUDED.channel_id)
  RETURNING (xmax = 0) AS inserted
), gone AS (
  DELETE FROM agent_events d
  -- rows can only come from the page's transactions: look them up by tx hash (the key's prefix)
  WHERE d.tx_hash = ANY($26::text[]) AND d.methodology_version = $23 AND d.source_block BETWEEN $24 AND $25
    AND NOT EXISTS (SELECT 1 FROM src WHERE src.tx = d.tx_hash AND src.li = d.log_index AND src.agent_id = d.agent_id)
  RETURNING 1
)
SELECT (SELECT count(*) FILTER (WHERE inserted) FROM up)::int AS inserted,
       (SELECT count(*) FILTER (WHERE NOT inserted) FROM up)::int AS updated,
       (SELECT count(*) FROM gone)::int AS deleted`;

/**
 * Re-derives `agent_events` under methodology `version` from the stored raw logs only (the chain is
 * never asked), page by page of blocks, each page in one transaction: new rows are inserted, changed
 * rows updated in place (ids kept), rows the rules no longer produce deleted, identical rows untouched;
 * for the live version the rollups of the touched days are recomputed in the same transaction.
 * Rematch does not NOTIFY: it re-derives history, it is not new activity.
 */
export async function rematch(
  client: pg.ClientBase,
  options: {
    version: string;
    context: MatchContext;
    /** True when `version` is the one the indexer writes live: its rollups are rebuilt too. */
    maintainRollups: boolean;
    /**
     * With maintainRollups: rebuild the rollups of every page's days, not only of pages whose rows changed — needed
     * once when the live version switches (the rollup tables hold one version: the live one).
     */
    rebuildAllRollups?: boolean;
    pageBlocks?: number;
    fromBlock?: bigint;
    toBlock?: bigint;
  },
): Promise<RematchResult> {
  assertMethodologyVersion(options.version);
  const pageBlocks = BigInt(options.pageBlocks ?? 5_000);
  const release = await acquireAdvisoryLock(client, `agent-ledger:rematch:${options.version}`);
  try {
    // Rebuilding some days of rollups that hold another version would mix two versions' numbers.
    if (options.maintainRollups && !options.rebuildAllRollups) await claimRollupsVersion(client, options.version);
    const bounds = await client.query("SELECT min(block_number)::text AS lo, max(block_number)::text AS hi FROM raw_logs");
    const result: RematchResult = { version: options.version, blocks: null, logs: 0, rows: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0 };
    if (bounds.rows[0].lo === null) {
      // Nothing stored (e.g. the ledger `npm start` clears for a new devnet): the empty rollups hold this version now.
      if (options.maintainRollups && options.rebuildAllRollups && options.fromBlock === undefined && options.toBlock === undefined) {
        await recordRollupsVersion(client, options.version);
      }
      return result;
    }
    const lo = options.fromBlock ?? BigInt(bounds.rows[0].lo);
    const hi = options.toBlock ?? BigInt(bounds.rows[0].hi);
    result.blocks = { from: lo.toString(), to: hi.toString() };
    for (let from = lo; from <= hi; from += pageBlocks) {
      const to = from + pageBlocks - 1n < hi ? from + pageBlocks - 1n : hi;
      const logs = await readRawLogs(client, from, to);
      const rows = matchLogs(logs, options.context, options.version);
      await client.query("BEGIN");
      try {
        const {
          rows: [counts],
        } = await client.query(UPSERT_EVENTS, [
          ...eventColumns(rows),
          options.version,
          from.toString(),
          to.toString(),
          [...new Set(logs.map((l) => l.txHash))],
        ]);
        if (options.maintainRollups && logs.length > 0 && (options.rebuildAllRollups || counts.inserted + counts.updated + counts.deleted > 0)) {
          await rebuildRollups(client, options.version, new Date(logs[0]!.blockTimestamp * 1000), new Date(logs.at(-1)!.blockTimestamp * 1000));
        }
        await client.query("COMMIT");
        result.logs += logs.length;
        result.rows += rows.length;
        result.inserted += counts.inserted;
        result.updated += counts.updated;
        result.deleted += counts.deleted;
        result.unchanged += rows.length - counts.inserted - counts.updated;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    }
    // A rebuild of every page's days over the whole stored range: the rollups now hold this version.
    if (options.maintainRollups && options.rebuildAllRollups && options.fromBlock === undefined && options.toBlock === undefined) {
      await recordRollupsVersion(client, options.version);
    }
    return result;
  } finally {
    await release().catch(() => {});
  }
}
