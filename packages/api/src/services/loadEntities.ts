import type { EntityHead, ServiceContext } from "./types.ts";

/** Entity heads in the order of `ids`; null where the id is unknown. */
export async function loadEntities(ctx: ServiceContext, ids: readonly string[]): Promise<(EntityHead | null)[]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query<EntityHead>("SELECT id, label, category, kind, active FROM entities WHERE id = ANY($1::text[])", [ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id) ?? null);
}
