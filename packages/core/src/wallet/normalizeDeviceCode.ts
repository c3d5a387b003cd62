import { DEVICE_CODE_ALPHABET, DEVICE_CODE_LENGTH } from "./constants.ts";

const VALID = new RegExp(`^[${DEVICE_CODE_ALPHABET}]{${DEVICE_CODE_LENGTH}}$`);

/**
 * What a person typed → the stored form: case-insensitive, dashes and whitespace ignored. Returns null
 * for anything that cannot be a code (wrong length, a character outside the alphabet, not a string).
 */
export function normalizeDeviceCode(input: unknown): string | null {
  if (typeof input !== "string" || input.length > 32) return null;
  const code = input.replace(/[\s-]/g, "").toUpperCase();
  return VALID.test(code) ? code : null;
}
