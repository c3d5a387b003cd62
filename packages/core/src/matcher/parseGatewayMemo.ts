import { GATEWAY_MEMO_MAGIC } from "./constants.ts";

/**
 * Gateway memo layout (bytes32): `ef1ed71201` magic (bytes 0–4) ‖ 10-byte per-service fingerprint
 * (bytes 5–14) ‖ zero bytes ‖ per-call nonce. Only the magic and the fingerprint are read.
 * Returns the fingerprint as `0x` + 20 lowercase hex, or null when the memo is not a gateway memo.
 */
export function parseGatewayMemo(memo: string | null): string | null {
  if (memo === null || memo.length !== 66) return null;
  const lower = memo.toLowerCase();
  if (!lower.startsWith(GATEWAY_MEMO_MAGIC)) return null;
  return `0x${lower.slice(12, 32)}`;
}
