import { keccak256 } from "viem";

/**
 * The Tempo account address of a P-256 passkey: the last 20 bytes of keccak256(x ‖ y). Accepts the
 * uncompressed key `0x04‖x‖y` (65 bytes) or `0x‖x‖y` (64 bytes).
 */
export function passkeyAddress(publicKey: string): `0x${string}` {
  const hex = publicKey.replace(/^0x/i, "").toLowerCase();
  const xy = hex.length === 130 && hex.startsWith("04") ? hex.slice(2) : hex;
  if (!/^[0-9a-f]{128}$/.test(xy)) throw new Error("expected an uncompressed P-256 public key (0x04‖x‖y or x‖y)");
  return `0x${keccak256(`0x${xy}`).slice(-40)}`;
}
