import type { ServiceContext } from "./types.ts";

/**
 * Time of each entity's newest row (highest id, any kind) of the live version — the first of its recent events —
 * via the (agent_id, id) index; null when none.
 */
export async function loadLastEventAt(ctx: ServiceContext, ids: readonly string[]): Promise<(Date | null)[]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query<{ id: string; last: Date | null }>(
    `SELECT e.id, (SELECT a.ts FROM agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2
                   ORDER BY a.id DESC LIMIT 1) AS last
     FROM unnest($1::text[]) AS e(id)`,
    [ids, ctx.version],
  );
  const byId = new Map(rows.map((r) => [r.id, r.last]));
  return ids.map((id) => byId.get(id) ?? null);
}
