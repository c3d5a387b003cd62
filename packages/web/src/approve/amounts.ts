import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";

/** Token amounts on Tempo: TIP-20 stablecoins with 6 decimals. Exact bigint string math, never floats. */
export const TOKEN_DECIMALS = 6;

const HUMAN = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/;

/**
 * "1.25" → 1250000n. Accepts digits with an optional fractional part of at most `decimals` digits
 * (commas, signs, exponents and spaces inside are refused). Throws a RangeError with a readable message.
 */
export function parseTokenAmount(text: string, decimals = TOKEN_DECIMALS): bigint {
  const s = text.trim();
  const m = HUMAN.exec(s);
  if (!m) throw new RangeError(`"${text}" is not an amount (use digits and an optional decimal point, e.g. 1.25)`);
  const whole = m[1] ?? "0";
  const frac = m[2] ?? m[3] ?? "";
  if (frac.length > decimals) throw new RangeError(`"${text}" has more than ${decimals} decimal places`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt((frac + "0".repeat(decimals)).slice(0, decimals) || "0");
}

/** 1250000n → "1,234.25" (grouped, at least two decimals: "10.00"); negative values keep their sign. */
export function formatTokenAmount(units: bigint | string, decimals = TOKEN_DECIMALS, minFraction = 2): string {
  return formatTokenUnits(units, { decimals, minFraction, group: true });
}

/** Well-known TIP-20 tokens (same addresses on every Tempo network and the devnet). */
const KNOWN_TOKENS: Record<string, string> = {
  "0x20c0000000000000000000000000000000000000": "pathUSD",
  "0x20c0000000000000000000000000000000000001": "AlphaUSD",
  "0x20c0000000000000000000000000000000000002": "BetaUSD",
  "0x20c0000000000000000000000000000000000003": "ThetaUSD",
};

/** A display name for a token address ("pathUSD", or a shortened address). */
export function tokenName(address: string | null | undefined): string {
  if (!address) return "USD";
  return KNOWN_TOKENS[address.toLowerCase()] ?? `${address.slice(0, 6)}…${address.slice(-4)}`;
}
