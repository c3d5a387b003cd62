import { InvalidAmountError } from "../errors.ts";

export const MAX_U256 = 2n ** 256n - 1n;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Parses a uint256 decimal string (no sign, no exponent, no leading zeros) into a bigint. */
export function parseU256(value: unknown): bigint {
  if (typeof value !== "string") throw new InvalidAmountError(value, "expected a decimal string");
  if (!DECIMAL.test(value)) throw new InvalidAmountError(value, "expected a non-negative integer in decimal");
  const n = BigInt(value);
  if (n > MAX_U256) throw new InvalidAmountError(value, "larger than uint256");
  return n;
}

/** Reads a uint256 from 32 bytes of ABI-encoded hex (`0x` + 64 hex, or 64 hex). */
export function hexWordToBigInt(word: string): bigint {
  return BigInt(word.startsWith("0x") ? word : `0x${word}`);
}
