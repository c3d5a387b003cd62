import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";

/** Token amounts: TIP-20 stablecoins with 6 decimals. Exact bigint string math — never floats. */
export const TOKEN_DECIMALS = 6;

const HUMAN = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/;

/**
 * "1.25" → 1250000n (base units). Digits with an optional fractional part of at most `decimals` digits; signs,
 * exponents, separators and spaces inside are refused. Throws a RangeError with a readable message.
 */
export function parseAmount(text: string, decimals = TOKEN_DECIMALS): bigint {
  const s = text.trim();
  const m = HUMAN.exec(s);
  if (!m) throw new RangeError(`"${text}" is not an amount: use digits with an optional decimal point, like 1.25`);
  const whole = m[1] ?? "0";
  const frac = m[2] ?? m[3] ?? "";
  if (frac.length > decimals) throw new RangeError(`"${text}" has more than ${decimals} decimal places (the token has ${decimals} decimals)`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
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
