import { keccak256, stringToHex } from "viem";

/**
 * The MPP fingerprint of a text (a challenge realm or a service host): the first 10 bytes of keccak256 of its UTF-8
 * bytes, as `0x` + 20 lowercase hex characters. It is the serverId (memo bytes 5..14) a client writes for that realm,
 * and the clientId (bytes 15..24) for a client id string (mppx `Attribution`; docs/registry.md).
 */
export function mppFingerprint(text: string): string {
  return keccak256(stringToHex(text)).slice(0, 22);
}
