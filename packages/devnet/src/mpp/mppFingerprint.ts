import { keccak256, slice, stringToHex, type Hex } from "viem";

/**
 * The 10-byte MPP fingerprint of a string, as mppx's attribution memo carries it (mppx `src/tempo/Attribution.ts`):
 * keccak256(utf8(value))[0..9], `0x` + 20 lowercase hex. Of a challenge realm it is the memo's serverId (bytes 5..14),
 * of a client id the memo's clientId (bytes 15..24).
 */
export function mppFingerprint(value: string): Hex {
  return slice(keccak256(stringToHex(value)), 0, 10).toLowerCase() as Hex;
}
