import { encodeIdCursor } from "./cursor.ts";
import { EVENT_COLUMNS, eventFromRow } from "./eventColumns.ts";
import type { EventRecord, Page, ServiceContext } from "./types.ts";

/**
 * One page of each entity's rows of the live version, newest first (id descending), in one query
 * (a LATERAL scan of the (agent_id, id) index per entity). `before` is the keyset position (exclusive).
 */
export async function loadEntityEventPages(
  ctx: ServiceContext,
  ids: readonly string[],
  page: { limit: number; before: bigint | null },
): Promise<Page<EventRecord>[]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query(
    `SELECT e.ord, ${EVENT_COLUMNS}
     FROM unnest($1::text[]) WITH ORDINALITY AS e(id, ord)
     CROSS JOIN LATERAL (
       SELECT * FROM agent_events x
       WHERE x.agent_id = e.id AND x.methodology_version = $2 AND ($3::bigint IS NULL OR x.id < $3)
       ORDER BY x.id DESC LIMIT $4
     ) a
     ORDER BY e.ord, a.id DESC`,
    [ids, ctx.version, page.before?.toString() ?? null, page.limit + 1],
  );
  const grouped: EventRecord[][] = ids.map(() => []);
  for (const r of rows) grouped[Number(r.ord) - 1]!.push(eventFromRow(r));
  return grouped.map((events) => {
    const more = events.length > page.limit;
    const items = more ? events.slice(0, page.limit) : events;
    return { items, nextCursor: more ? encodeIdCursor(items.at(-1)!.id) : null };
  });
}
