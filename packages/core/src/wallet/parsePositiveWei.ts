const MAX_U256 = 2n ** 256n - 1n;
const DECIMAL = /^[1-9][0-9]{0,77}$/;

/** A positive uint256 given as a decimal string (no sign, leading zeros, decimals or exponent), else null. */
export function parsePositiveWei(value: unknown): bigint | null {
  if (typeof value !== "string" || !DECIMAL.test(value)) return null;
  const n = BigInt(value);
  return n <= MAX_U256 ? n : null;
}
