import { DAY_MS, floorToDay } from "./resolveWindow.ts";
import type { ServiceContext, TrendPoint } from "./types.ts";

export const TREND_DAYS = 30;

/**
 * Daily payments (sent + received) of each entity over the 30 UTC days ending today, oldest first,
 * zero-filled, from entity_activity_daily.
 */
export async function loadEntityTrend(ctx: ServiceContext, ids: readonly string[]): Promise<TrendPoint[][]> {
  if (ids.length === 0) return [];
  const today = floorToDay(ctx.now()).getTime();
  const first = today - (TREND_DAYS - 1) * DAY_MS;
  const { rows } = await ctx.db.query<{ entity_id: string; bucket: Date; n: string; s: string }>(
    `SELECT entity_id, bucket, (sent_count + received_count)::text AS n, (sent_sum_wei + received_sum_wei)::text AS s
     FROM entity_activity_daily WHERE entity_id = ANY($1::text[]) AND bucket >= $2 AND bucket < $3`,
    [ids, new Date(first), new Date(today + DAY_MS)],
  );
  const byKey = new Map(rows.map((r) => [`${r.entity_id}\n${r.bucket.getTime()}`, r]));
  return ids.map((id) =>
    Array.from({ length: TREND_DAYS }, (_, i) => {
      const t = first + i * DAY_MS;
      const r = byKey.get(`${id}\n${t}`);
      return { day: new Date(t).toISOString().slice(0, 10), txCount: r ? Number(r.n) : 0, amountSumWei: r ? BigInt(r.s) : 0n };
    }),
  );
}
