import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { parseTokenUnits } from "@agent-ledger/core/parseTokenUnits";

/** Token amounts: TIP-20 stablecoins with 6 decimals. Exact bigint string math — never floats. */
export const TOKEN_DECIMALS = 6;

/**
 * "1.25" → 1250000n (base units). Digits with an optional fractional part of at most `decimals` digits; signs,
 * exponents, separators and spaces inside are refused. Throws a RangeError with a readable message. The rule is
 * core's `parseTokenUnits`, shared with the MCP `pay` tool.
 */
export function parseAmount(text: string, decimals = TOKEN_DECIMALS): bigint {
  return parseTokenUnits(text, decimals);
}

/** A positive amount in base units written as an integer string ("1250000"). */
export function parseBaseUnits(text: string): bigint {
  if (!/^\d+$/.test(text.trim())) throw new RangeError(`"${text}" is not a whole number of base units`);
  return BigInt(text.trim());
}

/** 1250000n → "1.25"; at least `minFraction` decimals ("10.00"), no trailing zeros beyond them, no grouping. */
export function formatAmount(units: bigint | string, decimals = TOKEN_DECIMALS, minFraction = 2): string {
  return formatTokenUnits(units, { decimals, minFraction });
}

/** "pathUSD" for the well-known TIP-20 tokens, else a shortened address ("" for none): core's `tokenName`. */
export { tokenName } from "@agent-ledger/core/tokenName";
