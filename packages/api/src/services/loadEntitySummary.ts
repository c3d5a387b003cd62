import { TREND_DAYS } from "./loadEntityTrend.ts";
import { DAY_MS, floorToDay } from "./resolveWindow.ts";
import type { EntityHead, EntityTotals, ServiceContext, TrendPoint } from "./types.ts";

export interface EntitySummary extends EntityHead {
  wallets: string[];
  totals: EntityTotals;
  trend: TrendPoint[];
}

// One statement, named (prepared once per connection): the head, the sorted wallets, and one pass over the entity's
// entity_activity_daily rows for both the all-time totals and the trend days ($2 ≤ bucket < $3).
const SUMMARY = {
  name: "loadEntitySummary",
  text: `SELECT e.id, e.label, e.category, e.kind, e.active,
       ARRAY(SELECT w.address FROM entity_wallets w WHERE w.entity_id = e.id ORDER BY w.address) AS wallets,
       t.n, t.s, t.fn, t.fs, t.days, t.day_n, t.day_s
     FROM entities e CROSS JOIN LATERAL (
       SELECT coalesce(sum(d.sent_count + d.received_count), 0)::text AS n, coalesce(sum(d.sent_sum_wei + d.received_sum_wei), 0)::text AS s,
              coalesce(sum(d.fee_count), 0)::text AS fn, coalesce(sum(d.fee_sum_wei), 0)::text AS fs,
              array_agg(to_char(d.bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD')) FILTER (WHERE d.bucket >= $2 AND d.bucket < $3) AS days,
              array_agg(d.sent_count + d.received_count) FILTER (WHERE d.bucket >= $2 AND d.bucket < $3) AS day_n,
              array_agg((d.sent_sum_wei + d.received_sum_wei)::text) FILTER (WHERE d.bucket >= $2 AND d.bucket < $3) AS day_s
       FROM entity_activity_daily d WHERE d.entity_id = e.id
     ) t
     WHERE e.id = $1`,
};

interface Row extends EntityHead {
  wallets: string[];
  n: string;
  s: string;
  fn: string;
  fs: string;
  days: string[] | null;
  day_n: number[] | null;
  day_s: string[] | null;
}

/**
 * What a detail page shows of an entity besides its rows, in one statement: head, wallets (sorted), all-time totals
 * (payments sent + received, fees; entity_activity_daily) and the 30 UTC days ending today (zero-filled, oldest
 * first). The same numbers as loadEntities + loadWallets + loadEntityTotals + loadEntityTrend. Null when unknown.
 */
export async function loadEntitySummary(ctx: ServiceContext, id: string): Promise<EntitySummary | null> {
  const today = floorToDay(ctx.now()).getTime();
  const first = today - (TREND_DAYS - 1) * DAY_MS;
  const { rows } = await ctx.db.query<Row>({ ...SUMMARY, values: [id, new Date(first), new Date(today + DAY_MS)] });
  const r = rows[0];
  if (!r) return null;
  const byDay = new Map<string, number>();
  r.days?.forEach((day, i) => byDay.set(day, i));
  const trend: TrendPoint[] = [];
  for (let i = 0; i < TREND_DAYS; i++) {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    const at = byDay.get(day);
    trend.push(at === undefined ? { day, txCount: 0, amountSumWei: 0n } : { day, txCount: r.day_n![at]!, amountSumWei: BigInt(r.day_s![at]!) });
  }
  return {
    id: r.id,
    label: r.label,
    category: r.category,
    kind: r.kind,
    active: r.active,
    wallets: r.wallets,
    totals: { txCount: Number(r.n), amountSumWei: BigInt(r.s), feeCount: Number(r.fn), feeSumWei: BigInt(r.fs) },
    trend,
  };
}
