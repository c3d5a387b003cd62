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

const KNOWN_TOKENS: Record<string, string> = {
  "0x20c0000000000000000000000000000000000000": "pathUSD",
  "0x20c0000000000000000000000000000000000001": "AlphaUSD",
  "0x20c0000000000000000000000000000000000002": "BetaUSD",
  "0x20c0000000000000000000000000000000000003": "ThetaUSD",
};

/** "pathUSD" for the well-known TIP-20 tokens, else a shortened address. */
export function tokenName(address: string | null | undefined): string {
  if (!address) return "";
  return KNOWN_TOKENS[address.toLowerCase()] ?? `${address.slice(0, 6)}…${address.slice(-4)}`;
}
