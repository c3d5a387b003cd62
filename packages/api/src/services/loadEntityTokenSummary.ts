import { byAmountThenToken } from "./loadTokenBreakdowns.ts";
import { TREND_DAYS } from "./loadEntityTrend.ts";
import { DAY_MS, floorToDay } from "./resolveWindow.ts";
import type { EntityTokenSummary, ServiceContext, TokenAmount } from "./types.ts";

interface Row {
  entity_id: string;
  ms: string;
  token_address: string;
  symbol: string | null;
  decimals: number | null;
  currency: string | null;
  n: number;
  s: string;
  fn: number;
  fs: string;
}

const add = (list: TokenAmount[], r: Row, n: number, s: bigint) => {
  const t = list.find((x) => x.tokenAddress === r.token_address);
  if (t) {
    t.txCount += n;
    t.amountSumWei += s;
  } else list.push({ tokenAddress: r.token_address, symbol: r.symbol, decimals: r.decimals, currency: r.currency, txCount: n, amountSumWei: s });
};

/**
 * Each entity's all-time totals (payments sent + received, fees) and its 30-day trend (the UTC days ending today, as
 * loadEntityTrend) split by token, in one pass over its entity_token_activity_daily rows; token symbol, decimals and
 * currency from the allowlist. In the order of `ids`; the breakdowns add up to loadEntityTotals / loadEntityTrend.
 */
export async function loadEntityTokenSummary(ctx: ServiceContext, ids: readonly string[]): Promise<EntityTokenSummary[]> {
  if (ids.length === 0) return [];
  const today = floorToDay(ctx.now()).getTime();
  const first = today - (TREND_DAYS - 1) * DAY_MS;
  const { rows } = await ctx.db.query<Row>(
    `SELECT x.entity_id, (extract(epoch FROM x.bucket) * 1000)::int8::text AS ms, x.token_address, t.symbol, t.decimals, t.currency,
            x.payments_count AS n, x.amount_sum_wei::text AS s, x.fee_count AS fn, x.fee_sum_wei::text AS fs
     FROM entity_token_activity_daily x LEFT JOIN tokens t ON t.address = x.token_address
     WHERE x.entity_id = ANY($1::text[])`,
    [ids],
  );
  const out = new Map(ids.map((id) => [id, { byToken: [], feesByToken: [], trend: Array.from({ length: TREND_DAYS }, () => []) } as EntityTokenSummary]));
  for (const r of rows) {
    const e = out.get(r.entity_id)!;
    if (r.n > 0) add(e.byToken, r, r.n, BigInt(r.s));
    if (r.fn > 0) add(e.feesByToken, r, r.fn, BigInt(r.fs));
    const day = (Number(r.ms) - first) / DAY_MS;
    if (r.n > 0 && day >= 0 && day < TREND_DAYS) add(e.trend[day]!, r, r.n, BigInt(r.s));
  }
  return ids.map((id) => {
    const e = out.get(id)!;
    e.byToken.sort(byAmountThenToken);
    e.feesByToken.sort(byAmountThenToken);
    for (const d of e.trend) d.sort(byAmountThenToken);
    return e;
  });
}
