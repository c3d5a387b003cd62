import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { parseTokenUnits } from "@agent-ledger/core/parseTokenUnits";
import { tokenName as coreTokenName } from "@agent-ledger/core/tokenName";

/** Token amounts on Tempo: TIP-20 stablecoins with 6 decimals. Exact bigint string math, never floats. */
export const TOKEN_DECIMALS = 6;

/**
 * "1.25" → 1250000n. Accepts digits with an optional fractional part of at most `decimals` digits
 * (commas, signs, exponents and spaces inside are refused). Throws a RangeError with a readable message.
 * The rule is core's `parseTokenUnits`, shared with the CLI and the MCP `pay` tool.
 */
export function parseTokenAmount(text: string, decimals = TOKEN_DECIMALS): bigint {
  return parseTokenUnits(text, decimals);
}

/** 1250000n → "1,234.25" (grouped, at least two decimals: "10.00"); negative values keep their sign. */
export function formatTokenAmount(units: bigint | string, decimals = TOKEN_DECIMALS, minFraction = 2): string {
  return formatTokenUnits(units, { decimals, minFraction, group: true });
}

/** A display name for a token address ("pathUSD", or a shortened address; "USD" for none): core's `tokenName`. */
export function tokenName(address: string | null | undefined): string {
  return coreTokenName(address, "USD");
}
