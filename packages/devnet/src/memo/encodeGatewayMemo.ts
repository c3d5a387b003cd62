import { concat, isHex, padHex, size, toHex, type Hex } from "viem";
import { DevnetError } from "../errors.ts";

/** First 5 bytes of every gateway (Pattern B) memo. */
export const GATEWAY_MEMO_MAGIC = "0xef1ed71201" as const;
export const GATEWAY_FINGERPRINT_BYTES = 10;
export const GATEWAY_NONCE_BYTES = 7;
export const MAX_GATEWAY_NONCE = (1n << 56n) - 1n;

/**
 * bytes32 memo of an agent → gateway payment:
 * magic (5 bytes `ef1ed71201`) ‖ service fingerprint (10) ‖ 8 zero bytes ‖ per-call nonce (7, big-endian) ‖ 2 zero bytes.
 * Offsets: fingerprint = bytes 5..14, nonce = bytes 23..29.
 */
export function encodeGatewayMemo(fingerprintHex: Hex, nonce: bigint): Hex {
  if (!isHex(fingerprintHex, { strict: true }) || size(fingerprintHex) !== GATEWAY_FINGERPRINT_BYTES)
    throw new DevnetError(`gateway fingerprint must be ${GATEWAY_FINGERPRINT_BYTES} bytes hex, got ${fingerprintHex}`);
  if (nonce < 0n || nonce > MAX_GATEWAY_NONCE) throw new DevnetError(`gateway memo nonce must fit in 7 bytes, got ${nonce}`);
  return concat([
    GATEWAY_MEMO_MAGIC,
    fingerprintHex.toLowerCase() as Hex,
    padHex("0x", { size: 8 }),
    toHex(nonce, { size: GATEWAY_NONCE_BYTES }),
    padHex("0x", { size: 2 }),
  ]);
}
