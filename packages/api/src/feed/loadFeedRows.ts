import { EVENT_COLUMNS, eventFromRow } from "../services/eventColumns.ts";
import type { Db, EventRecord } from "../services/types.ts";
import type { FeedFilter } from "./types.ts";

interface FeedDb {
  db: Db;
  version: string;
}

/** The hub's start position: the highest id of the live version (0 when there is none). */
export async function loadLivePosition(ctx: FeedDb): Promise<bigint> {
  const { rows } = await ctx.db.query("SELECT coalesce(max(id), 0)::text AS id FROM agent_events WHERE methodology_version = $1", [ctx.version]);
  return BigInt(rows[0].id as string);
}

const LIVE_ROWS_AFTER = `SELECT ${EVENT_COLUMNS} FROM agent_events a WHERE a.id > $1 AND a.methodology_version = $2 ORDER BY a.id LIMIT $3`;

/** Up to `limit` live-version rows with id > `after`, in id order (a primary-key range scan). */
export async function loadLiveRowsAfter(ctx: FeedDb, after: bigint, limit: number): Promise<EventRecord[]> {
  // Named: runs after every NOTIFY, so each pooled connection parses and plans it once.
  const { rows } = await ctx.db.query({ name: "feed.liveRowsAfter", text: LIVE_ROWS_AFTER, values: [after.toString(), ctx.version, limit] });
  return rows.map(eventFromRow);
}

/**
 * A replay page: live-version rows with id > `after` that pass `filter`, in id order. With an agent filter it walks
 * the `(agent_id, id)` index; otherwise the primary key.
 */
export async function loadReplayPage(ctx: FeedDb, after: bigint, filter: FeedFilter, limit: number): Promise<EventRecord[]> {
  const params: unknown[] = [after.toString(), ctx.version, limit];
  let where = "a.id > $1 AND a.methodology_version = $2";
  if (filter.agentId !== null) {
    params.push(filter.agentId);
    where += ` AND a.agent_id = $${params.length}`;
  }
  if (filter.minAmountWei !== null) {
    params.push(filter.minAmountWei.toString());
    where += ` AND a.amount_wei >= $${params.length}::numeric`;
  }
  const { rows } = await ctx.db.query(`SELECT ${EVENT_COLUMNS} FROM agent_events a WHERE ${where} ORDER BY a.id LIMIT $3`, params);
  return rows.map(eventFromRow);
}
