import { ENTITY_ID } from "@agent-ledger/core";
import type { EntityHead, ServiceContext } from "./types.ts";

/**
 * Entity heads in the order of `ids`; null where the id is unknown. An id that is not an entity id (core ENTITY_ID:
 * every registry id is one) cannot exist and is not sent to the database (a NUL byte would make the query fail).
 */
export async function loadEntities(ctx: ServiceContext, ids: readonly string[]): Promise<(EntityHead | null)[]> {
  const asked = ids.filter((id) => ENTITY_ID.test(id));
  if (asked.length === 0) return ids.map(() => null);
  const { rows } = await ctx.db.query<EntityHead>("SELECT id, label, category, kind, active FROM entities WHERE id = ANY($1::text[])", [asked]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id) ?? null);
}
