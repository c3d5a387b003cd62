import { EVENT_COLUMNS, eventFromRow } from "./eventColumns.ts";
import type { EventRecord, ServiceContext } from "./types.ts";

/** The newest rows of the live version, by id descending (primary key scan). */
export async function listRecentEvents(ctx: ServiceContext, limit: number): Promise<EventRecord[]> {
  const { rows } = await ctx.db.query(`SELECT ${EVENT_COLUMNS} FROM agent_events a WHERE a.methodology_version = $1 ORDER BY a.id DESC LIMIT $2`, [
    ctx.version,
    limit,
  ]);
  return rows.map(eventFromRow);
}
