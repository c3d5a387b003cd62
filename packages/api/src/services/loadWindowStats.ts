import { HOUR_MS, floorToHour } from "./resolveWindow.ts";
import type { ServiceContext, WindowStats } from "./types.ts";

/**
 * Payments (sent + received) of each entity in the `24h` and `7d` windows, from entity_activity_hourly;
 * in the order of `ids`, zeros where there is no activity.
 */
export async function loadWindowStats(ctx: ServiceContext, ids: readonly string[]): Promise<WindowStats[]> {
  if (ids.length === 0) return [];
  const hour = floorToHour(ctx.now()).getTime();
  const { rows } = await ctx.db.query<{ entity_id: string; n24: string; s24: string; n7: string; s7: string }>(
    `SELECT entity_id,
            coalesce(sum(sent_count + received_count) FILTER (WHERE bucket >= $2), 0)::text AS n24,
            coalesce(sum(sent_sum_wei + received_sum_wei) FILTER (WHERE bucket >= $2), 0)::text AS s24,
            coalesce(sum(sent_count + received_count), 0)::text AS n7,
            coalesce(sum(sent_sum_wei + received_sum_wei), 0)::text AS s7
     FROM entity_activity_hourly
     WHERE entity_id = ANY($1::text[]) AND bucket >= $3 AND bucket < $4
     GROUP BY entity_id`,
    [ids, new Date(hour - 23 * HOUR_MS), new Date(hour - 167 * HOUR_MS), new Date(hour + HOUR_MS)],
  );
  const byId = new Map(rows.map((r) => [r.entity_id, r]));
  return ids.map((id) => {
    const r = byId.get(id);
    return {
      txCount24h: r ? Number(r.n24) : 0,
      amountSumWei24h: r ? BigInt(r.s24) : 0n,
      txCount7d: r ? Number(r.n7) : 0,
      amountSumWei7d: r ? BigInt(r.s7) : 0n,
    };
  });
}
