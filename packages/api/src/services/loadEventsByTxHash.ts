import { EVENT_COLUMNS, eventFromRow } from "./eventColumns.ts";
import type { EventRecord, ServiceContext } from "./types.ts";

/** Every row of the live version in each transaction, ordered by log_index then agent_id (tx_hash index). */
export async function loadEventsByTxHash(ctx: ServiceContext, txHashes: readonly string[]): Promise<EventRecord[][]> {
  if (txHashes.length === 0) return [];
  const { rows } = await ctx.db.query(
    `SELECT ${EVENT_COLUMNS} FROM agent_events a WHERE a.tx_hash = ANY($1::text[]) AND a.methodology_version = $2
     ORDER BY a.tx_hash, a.log_index, a.agent_id`,
    [txHashes, ctx.version],
  );
  const byTx = new Map<string, EventRecord[]>();
  for (const r of rows) {
    const e = eventFromRow(r);
    const list = byTx.get(e.txHash);
    if (list) list.push(e);
    else byTx.set(e.txHash, [e]);
  }
  return txHashes.map((h) => byTx.get(h) ?? []);
}
