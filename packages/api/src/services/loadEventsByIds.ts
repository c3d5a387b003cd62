import { EVENT_COLUMNS, eventFromRow } from "./eventColumns.ts";
import type { EventRecord, ServiceContext } from "./types.ts";

/** Rows of the live version by id, in the order of `ids`; null where absent (or of another version). */
export async function loadEventsByIds(ctx: ServiceContext, ids: readonly bigint[]): Promise<(EventRecord | null)[]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query(`SELECT ${EVENT_COLUMNS} FROM agent_events a WHERE a.id = ANY($1::bigint[]) AND a.methodology_version = $2`, [
    ids.map(String),
    ctx.version,
  ]);
  const byId = new Map(rows.map((r) => [String(r.id), eventFromRow(r)]));
  return ids.map((id) => byId.get(id.toString()) ?? null);
}
