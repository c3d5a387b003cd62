import type { ServiceContext } from "./types.ts";

/** One contract of the registry's token allowlist (methodology v0.2): how its raw units are written. */
export interface TokenInfo {
  address: string;
  symbol: string;
  decimals: number;
  currency: string;
}

/**
 * The registry's token allowlist (table `tokens`), by symbol (case-insensitive) then address. Empty under methodology v0.1 without an
 * allowlist: amounts are then token units of 6 decimals (docs/methodology.md). Clients format each amount with its
 * own token's `decimals` and never add raw units across tokens.
 */
export async function listTokens(ctx: ServiceContext): Promise<TokenInfo[]> {
  const { rows } = await ctx.db.query<TokenInfo>("SELECT address, symbol, decimals, currency FROM tokens ORDER BY lower(symbol), address");
  return rows;
}
