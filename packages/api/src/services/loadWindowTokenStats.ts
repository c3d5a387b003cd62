import { byAmountThenToken } from "./loadTokenBreakdowns.ts";
import { HOUR_MS, floorToHour } from "./resolveWindow.ts";
import type { ServiceContext, TokenAmount, WindowTokenStats } from "./types.ts";

/**
 * loadWindowStats split by token: each entity's payments (sent + received) per token in the `24h` and `7d` windows,
 * from entity_token_activity_hourly in one statement; in the order of `ids`, empty where there is no activity.
 */
export async function loadWindowTokenStats(ctx: ServiceContext, ids: readonly string[]): Promise<WindowTokenStats[]> {
  if (ids.length === 0) return [];
  const hour = floorToHour(ctx.now()).getTime();
  const { rows } = await ctx.db.query<{
    entity_id: string;
    token_address: string;
    symbol: string | null;
    decimals: number | null;
    currency: string | null;
    n24: string;
    s24: string;
    n7: string;
    s7: string;
  }>(
    `SELECT x.entity_id, x.token_address, t.symbol, t.decimals, t.currency,
            coalesce(sum(x.payments_count) FILTER (WHERE x.bucket >= $2), 0)::text AS n24,
            coalesce(sum(x.amount_sum_wei) FILTER (WHERE x.bucket >= $2), 0)::text AS s24,
            sum(x.payments_count)::text AS n7, sum(x.amount_sum_wei)::text AS s7
     FROM entity_token_activity_hourly x LEFT JOIN tokens t ON t.address = x.token_address
     WHERE x.entity_id = ANY($1::text[]) AND x.bucket >= $3 AND x.bucket < $4
     GROUP BY 1, 2, 3, 4, 5`,
    [ids, new Date(hour - 23 * HOUR_MS), new Date(hour - 167 * HOUR_MS), new Date(hour + HOUR_MS)],
  );
  const out = new Map<string, WindowTokenStats>(ids.map((id) => [id, { byToken24h: [], byToken7d: [] }]));
  for (const r of rows) {
    const e = out.get(r.entity_id)!;
    const token = { tokenAddress: r.token_address, symbol: r.symbol, decimals: r.decimals, currency: r.currency };
    if (r.n24 !== "0") e.byToken24h.push({ ...token, txCount: Number(r.n24), amountSumWei: BigInt(r.s24) } satisfies TokenAmount);
    if (r.n7 !== "0") e.byToken7d.push({ ...token, txCount: Number(r.n7), amountSumWei: BigInt(r.s7) });
  }
  return ids.map((id) => {
    const e = out.get(id)!;
    e.byToken24h.sort(byAmountThenToken);
    e.byToken7d.sort(byAmountThenToken);
    return e;
  });
}
