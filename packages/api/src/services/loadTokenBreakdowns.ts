import type { ServiceContext, TokenAmount } from "./types.ts";

/** Which per-token rollup to read: an entity's payments (sent + received) or what reached a provider. */
export type TokenScope = "entity" | "provider";

const KEY_COLUMN: Record<TokenScope, string> = { entity: "entity_id", provider: "provider_key" };

export interface TokenBreakdownRange {
  grain: "hourly" | "daily";
  /** Inclusive lower bucket bound; null = unbounded. */
  from: Date | null;
  /** Exclusive upper bucket bound; null = unbounded. */
  to: Date | null;
}

interface Row {
  key: string;
  token_address: string;
  symbol: string | null;
  decimals: number | null;
  currency: string | null;
  n: string;
  s: string;
  fn: string;
  fs: string;
}

/** Largest amount first, then token address (the order of every `byToken` array). */
export function byAmountThenToken(a: TokenAmount, b: TokenAmount): number {
  if (a.amountSumWei !== b.amountSumWei) return a.amountSumWei > b.amountSumWei ? -1 : 1;
  return a.tokenAddress < b.tokenAddress ? -1 : a.tokenAddress > b.tokenAddress ? 1 : 0;
}

export interface TokenBreakdown {
  /** Payments (entity: sent + received; provider: what reached it) per token; tokens without payments are left out. */
  byToken: TokenAmount[];
  /** Entity scope only: fees paid per token (empty for providers and for entities without fees). */
  feesByToken: TokenAmount[];
}

/**
 * The per-token breakdown of entities' or providers' rollups over a bucket range (entity_token_activity_* /
 * provider_token_activity_*), with each token's symbol, decimals and currency from the registry's allowlist (null
 * when it does not list the token). One statement for all keys; in the order of `keys`, empty where nothing counted.
 * Each breakdown adds up to the scope's own count and sum over the same range.
 */
export async function loadTokenBreakdowns(
  ctx: ServiceContext,
  scope: TokenScope,
  keys: readonly string[],
  range: TokenBreakdownRange,
): Promise<TokenBreakdown[]> {
  if (keys.length === 0) return [];
  const key = KEY_COLUMN[scope];
  const fees = scope === "entity" ? "sum(x.fee_count)::text AS fn, sum(x.fee_sum_wei)::text AS fs" : "'0' AS fn, '0' AS fs";
  const { rows } = await ctx.db.query<Row>(
    `SELECT x.${key} AS key, x.token_address, t.symbol, t.decimals, t.currency,
            sum(x.payments_count)::text AS n, sum(x.amount_sum_wei)::text AS s, ${fees}
     FROM ${scope}_token_activity_${range.grain} x LEFT JOIN tokens t ON t.address = x.token_address
     WHERE x.${key} = ANY($1::text[]) AND ($2::timestamptz IS NULL OR x.bucket >= $2) AND ($3::timestamptz IS NULL OR x.bucket < $3)
     GROUP BY 1, 2, 3, 4, 5`,
    [keys, range.from, range.to],
  );
  const out = new Map<string, TokenBreakdown>();
  for (const r of rows) {
    let b = out.get(r.key);
    if (!b) out.set(r.key, (b = { byToken: [], feesByToken: [] }));
    const token = { tokenAddress: r.token_address, symbol: r.symbol, decimals: r.decimals, currency: r.currency };
    if (r.n !== "0") b.byToken.push({ ...token, txCount: Number(r.n), amountSumWei: BigInt(r.s) });
    if (r.fn !== "0") b.feesByToken.push({ ...token, txCount: Number(r.fn), amountSumWei: BigInt(r.fs) });
  }
  return keys.map((k) => {
    const b = out.get(k);
    if (!b) return { byToken: [], feesByToken: [] };
    b.byToken.sort(byAmountThenToken);
    b.feesByToken.sort(byAmountThenToken);
    return b;
  });
}
