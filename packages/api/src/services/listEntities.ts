import { loadLastEventAt } from "./loadLastEventAt.ts";
import { loadWallets } from "./loadWallets.ts";
import { loadWindowStats } from "./loadWindowStats.ts";
import { loadWindowTokenStats } from "./loadWindowTokenStats.ts";
import type { EntityHead, EntityKind, EntityListItem, ServiceContext } from "./types.ts";

/**
 * Entity heads of one kind (services: id ends `-mpp`; agents: the rest), active or not. A registry v3 session escrow
 * (entity kind `escrow`, made from `escrows[]`) is neither: it is never listed (its rows and page stay reachable).
 */
export async function listEntityHeads(ctx: ServiceContext, kind: EntityKind): Promise<EntityHead[]> {
  const { rows } = await ctx.db.query<EntityHead>(
    "SELECT id, label, category, kind, active FROM entities WHERE (id LIKE '%-mpp') = $1 AND kind <> 'escrow' ORDER BY id",
    [kind === "service"],
  );
  return rows;
}

/** Compares list items: 7-day amount descending, then id. */
export function byAmount7dThenId(a: { id: string; amountSumWei7d: bigint }, b: { id: string; amountSumWei7d: bigint }): number {
  if (a.amountSumWei7d !== b.amountSumWei7d) return a.amountSumWei7d > b.amountSumWei7d ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Every entity of one kind with wallets, 24 h / 7 d payment aggregates (also per token) and last event time (batched queries). */
export async function listEntities(ctx: ServiceContext, kind: EntityKind): Promise<EntityListItem[]> {
  const heads = await listEntityHeads(ctx, kind);
  const ids = heads.map((h) => h.id);
  const [wallets, stats, tokens, last] = await Promise.all([
    loadWallets(ctx, ids),
    loadWindowStats(ctx, ids),
    loadWindowTokenStats(ctx, ids),
    loadLastEventAt(ctx, ids),
  ]);
  return heads.map((h, i) => ({ ...h, wallets: wallets[i]!, ...stats[i]!, ...tokens[i]!, lastEventAt: last[i]! })).sort(byAmount7dThenId);
}
