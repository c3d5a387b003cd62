import type { EntityTotals, ServiceContext } from "./types.ts";

/** All-time payments (sent + received) and fees of each entity, from entity_activity_daily. */
export async function loadEntityTotals(ctx: ServiceContext, ids: readonly string[]): Promise<EntityTotals[]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query<{ entity_id: string; n: string; s: string; fn: string; fs: string }>(
    `SELECT entity_id, sum(sent_count + received_count)::text AS n, sum(sent_sum_wei + received_sum_wei)::text AS s,
            sum(fee_count)::text AS fn, sum(fee_sum_wei)::text AS fs
     FROM entity_activity_daily WHERE entity_id = ANY($1::text[]) GROUP BY entity_id`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.entity_id, r]));
  return ids.map((id) => {
    const r = byId.get(id);
    return r
      ? { txCount: Number(r.n), amountSumWei: BigInt(r.s), feeCount: Number(r.fn), feeSumWei: BigInt(r.fs) }
      : { txCount: 0, amountSumWei: 0n, feeCount: 0, feeSumWei: 0n };
  });
}
