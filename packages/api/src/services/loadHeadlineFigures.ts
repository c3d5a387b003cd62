import type { WindowBounds } from "./resolveWindow.ts";
import type { ServiceContext, TokenAmount } from "./types.ts";

/** A registry v3 session escrow is an entity (its rows are funding and escrow-view payouts), never an agent. */
const NOT_ESCROW = "entity_id NOT IN (SELECT id FROM entities WHERE kind = 'escrow')";

/** `bucket` in the span; $1 = from (null = unbounded), $2 = to (exclusive). */
export const IN_WINDOW = "($1::timestamptz IS NULL OR bucket >= $1) AND bucket < $2";

export type Span = Pick<WindowBounds, "grain" | "from" | "to">;

/** The headline figures of a span of rollup buckets: the dashboard's window and the one before it. */
export interface HeadlineFigures {
  txCount: number;
  amountSumWei: bigint;
  /** txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei). */
  byToken: TokenAmount[];
  agentsActive: number;
  providersDetected: number;
}

/**
 * Payments, volume, per-token split, active agents and providers of the buckets in [span.from, span.to), from the
 * rollup tables only. `totals`: the span is all time and no bucket lies past its end, so the one-row-per-entity
 * all-time tables answer the two distinct counts instead of every daily bucket.
 */
export async function loadHeadlineFigures(ctx: ServiceContext, span: Span, totals = false): Promise<HeadlineFigures> {
  const g = span.grain; // "hourly" | "daily": from a closed set, safe to interpolate
  const range = [span.from, span.to];
  const [ledger, agents, providers, byToken] = await Promise.all([
    ctx.db.query<{ n: string; s: string }>(
      `SELECT coalesce(sum(payments_count), 0)::text AS n, coalesce(sum(amount_sum_wei), 0)::text AS s FROM ledger_activity_${g} WHERE ${IN_WINDOW}`,
      range,
    ),
    totals
      ? ctx.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM entity_activity_total WHERE entity_id NOT LIKE '%-mpp' AND ${NOT_ESCROW}`)
      : ctx.db.query<{ n: string }>(
          `SELECT count(DISTINCT entity_id)::text AS n FROM entity_activity_${g} WHERE ${IN_WINDOW} AND entity_id NOT LIKE '%-mpp' AND ${NOT_ESCROW}`,
          range,
        ),
    totals
      ? ctx.db.query<{ n: string }>("SELECT count(*)::text AS n FROM provider_activity_total")
      : ctx.db.query<{ n: string }>(`SELECT count(DISTINCT provider_key)::text AS n FROM provider_activity_${g} WHERE ${IN_WINDOW}`, range),
    tokenAmounts(ctx, span),
  ]);
  return {
    txCount: Number(ledger.rows[0]!.n),
    amountSumWei: BigInt(ledger.rows[0]!.s),
    byToken,
    agentsActive: Number(agents.rows[0]!.n),
    providersDetected: Number(providers.rows[0]!.n),
  };
}

/**
 * The payments per token (ledger_token_activity_*) of the buckets in [span.from, span.to) (from null: since the
 * beginning), with the allowlist's description; largest amount first.
 */
export async function tokenAmounts(ctx: ServiceContext, span: Span): Promise<TokenAmount[]> {
  const { rows } = await ctx.db.query<{ token_address: string; symbol: string | null; decimals: number | null; currency: string | null; n: string; s: string }>(
    `SELECT l.token_address, t.symbol, t.decimals, t.currency, sum(l.payments_count)::text AS n, sum(l.amount_sum_wei)::text AS s
     FROM ledger_token_activity_${span.grain} l LEFT JOIN tokens t ON t.address = l.token_address
     WHERE ${IN_WINDOW} GROUP BY 1, 2, 3, 4 ORDER BY sum(l.amount_sum_wei) DESC, l.token_address`,
    [span.from, span.to],
  );
  return rows.map((r) => ({
    tokenAddress: r.token_address,
    symbol: r.symbol,
    decimals: r.decimals,
    currency: r.currency,
    txCount: Number(r.n),
    amountSumWei: BigInt(r.s),
  }));
}
