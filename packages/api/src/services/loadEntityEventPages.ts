import { encodeIdCursor } from "./cursor.ts";
import { EVENT_COLUMNS, eventFromRow } from "./eventColumns.ts";
import type { EventRecord, Page, ServiceContext } from "./types.ts";

const pagesSql = (before: boolean) => `SELECT e.ord, ${EVENT_COLUMNS}
  FROM unnest($1::text[]) WITH ORDINALITY AS e(id, ord)
  CROSS JOIN LATERAL (
    SELECT * FROM agent_events x
    WHERE x.agent_id = e.id AND x.methodology_version = $2${before ? " AND x.id < $4" : ""}
    ORDER BY x.id DESC LIMIT $3
  ) a
  ORDER BY e.ord, a.id DESC`;
// First pages (every detail page asks for one) are a named statement, prepared once per connection.
const FIRST_PAGES = { name: "loadEntityEventPages.first", text: pagesSql(false) };
const NEXT_PAGES = pagesSql(true);

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
    page.before === null
      ? { ...FIRST_PAGES, values: [ids, ctx.version, page.limit + 1] }
      : { text: NEXT_PAGES, values: [ids, ctx.version, page.limit + 1, page.before.toString()] },
  );
  const grouped: EventRecord[][] = ids.map(() => []);
  for (const r of rows) grouped[Number(r.ord) - 1]!.push(eventFromRow(r));
  return grouped.map((events) => {
    const more = events.length > page.limit;
    const items = more ? events.slice(0, page.limit) : events;
    return { items, nextCursor: more ? encodeIdCursor(items.at(-1)!.id) : null };
  });
}
