import { DEVICE_CODE_ALPHABET, DEVICE_CODE_LENGTH } from "./constants.ts";

/**
 * A normalized device code (8 characters of the RFC 8628 consonant alphabet, no dash) from a source of
 * random bytes. Rejection sampling (bytes ≥ 240 are skipped) keeps every character uniform.
 */
export function generateDeviceCode(randomBytes: (n: number) => Uint8Array): string {
  const n = DEVICE_CODE_ALPHABET.length;
  const limit = 256 - (256 % n);
  let code = "";
  while (code.length < DEVICE_CODE_LENGTH) {
    for (const b of randomBytes(DEVICE_CODE_LENGTH * 2)) {
      if (b >= limit) continue;
      code += DEVICE_CODE_ALPHABET[b % n];
      if (code.length === DEVICE_CODE_LENGTH) break;
    }
  }
  return code;
}
