import { decodeIdCursor, encodeIdCursor } from "./cursor.ts";
import { EVENT_COLUMNS, eventFromRow } from "./eventColumns.ts";
import type { EventRecord, Page, ServiceContext } from "./types.ts";

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Rows found by an exact transaction hash (66 characters) or counterparty address (42 characters),
 * case-insensitive, newest first; other queries find no rows. Uses the tx_hash / counterparty_address indexes.
 */
export async function searchEvents(ctx: ServiceContext, q: string, page: { limit: number; after: string | null }): Promise<Page<EventRecord>> {
  const column = TX_HASH.test(q) ? "tx_hash" : ADDRESS.test(q) ? "counterparty_address" : null;
  const before = decodeIdCursor(page.after);
  if (!column) return { items: [], nextCursor: null };
  const { rows } = await ctx.db.query(
    `SELECT ${EVENT_COLUMNS} FROM agent_events a
     WHERE a.${column} = $1 AND a.methodology_version = $2 AND ($3::bigint IS NULL OR a.id < $3)
     ORDER BY a.id DESC LIMIT $4`,
    [q.toLowerCase(), ctx.version, before?.toString() ?? null, page.limit + 1],
  );
  const events = rows.map(eventFromRow);
  const more = events.length > page.limit;
  const items = more ? events.slice(0, page.limit) : events;
  return { items, nextCursor: more ? encodeIdCursor(items.at(-1)!.id) : null };
}
