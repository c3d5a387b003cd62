/** A token of the registry's allowlist (GraphQL `tokens`). */
export interface AllowedToken {
  address: string;
  symbol: string;
  decimals: number;
  currency?: string;
}

/**
 * The unit a sum over every allowlisted token can be written in, or null: only when every token has the same decimals
 * (one token: its symbol; one currency: the currency; else "token units"). No allowlist (v0.1): 6-decimal token units.
 */
export function commonTokenUnit(tokens: readonly AllowedToken[]): { decimals: number; unit: string } | null {
  if (tokens.length === 0) return { decimals: 6, unit: "token units" };
  const decimals = tokens[0]!.decimals;
  if (!tokens.every((t) => t.decimals === decimals)) return null;
  if (tokens.length === 1) return { decimals, unit: tokens[0]!.symbol };
  const currency = tokens[0]!.currency;
  return { decimals, unit: currency && tokens.every((t) => t.currency === currency) ? currency : "token units" };
}

/**
 * The decimals a webhook's minimum amount is typed in (docs/webhooks.md § Console), for the console and the CLI alike:
 * the chosen token's; for any token, the allowlist's common decimals (commonTokenUnit) — refused when the allowlist
 * mixes decimals (raw units of a 6- and an 18-decimal token are not one amount). A token outside a non-empty allowlist
 * is refused; without an allowlist (v0.1) every token counts in 6 decimals.
 */
export function minimumAmountUnit(tokens: readonly AllowedToken[], token?: string): { decimals: number; unit: string } | { refused: string } {
  if (token) {
    const t = tokens.find((x) => x.address.toLowerCase() === token.toLowerCase());
    if (t) return { decimals: t.decimals, unit: t.symbol };
    if (tokens.length > 0) return { refused: `${token} is not a token of the registry's allowlist (${tokens.map((x) => x.symbol).join(", ")})` };
    return { decimals: 6, unit: "token units" };
  }
  const common = commonTokenUnit(tokens);
  if (common) return common;
  const each = tokens.map((t) => `${t.symbol} ${t.decimals}`).join(", ");
  return {
    refused: `Choose a token for a minimum amount: the allowed tokens have different decimals (${each}), so a minimum for any token is not one amount.`,
  };
}
