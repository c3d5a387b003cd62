import type { ServiceContext } from "./types.ts";

/** Wallet addresses of each entity (sorted), in the order of `ids`; unknown ids get []. */
export async function loadWallets(ctx: ServiceContext, ids: readonly string[]): Promise<string[][]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query<{ entity_id: string; address: string }>(
    "SELECT entity_id, address FROM entity_wallets WHERE entity_id = ANY($1::text[]) ORDER BY entity_id, address",
    [ids],
  );
  const byId = new Map<string, string[]>();
  for (const r of rows) {
    const list = byId.get(r.entity_id);
    if (list) list.push(r.address);
    else byId.set(r.entity_id, [r.address]);
  }
  return ids.map((id) => byId.get(id) ?? []);
}
