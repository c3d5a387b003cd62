import { tokenAmounts } from "./getDashboard.ts";
import { resolveWindow } from "./resolveWindow.ts";
import type { ServiceContext, TokenAmount } from "./types.ts";

/** The headline figures of one span of rollup buckets. */
export interface WindowFigures {
  from: Date;
  to: Date;
  txCount: number;
  amountSumWei: bigint;
  /** txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei). */
  byToken: TokenAmount[];
  agentsActive: number;
  providersDetected: number;
}

/**
 * The headline figures of the window just before a dashboard window (same length, ending where it starts): what
 * "change vs previous window" compares with. Null for `all` (nothing before it). Rollups only.
 */
export async function getPreviousWindow(ctx: ServiceContext, window: string): Promise<WindowFigures | null> {
  const w = resolveWindow(window, ctx.now());
  if (!w.from) return null;
  const to = w.from;
  const from = new Date(to.getTime() - (w.to.getTime() - w.from.getTime()));
  const g = w.grain; // closed set: safe to interpolate
  const range = [from, to];
  const [ledger, agents, providers, byToken] = await Promise.all([
    ctx.db.query<{ n: string; s: string }>(
      `SELECT coalesce(sum(payments_count), 0)::text AS n, coalesce(sum(amount_sum_wei), 0)::text AS s FROM ledger_activity_${g} WHERE bucket >= $1 AND bucket < $2`,
      range,
    ),
    ctx.db.query<{ n: string }>(`SELECT count(DISTINCT entity_id)::text AS n FROM entity_activity_${g} WHERE bucket >= $1 AND bucket < $2 AND entity_id NOT LIKE '%-mpp'`, range),
    ctx.db.query<{ n: string }>(`SELECT count(DISTINCT provider_key)::text AS n FROM provider_activity_${g} WHERE bucket >= $1 AND bucket < $2`, range),
    tokenAmounts(ctx, { grain: g, from, to }),
  ]);
  return {
    from,
    to,
    txCount: Number(ledger.rows[0]!.n),
    amountSumWei: BigInt(ledger.rows[0]!.s),
    byToken,
    agentsActive: Number(agents.rows[0]!.n),
    providersDetected: Number(providers.rows[0]!.n),
  };
}
