import { size, slice, type Hex } from "viem";
import { GATEWAY_MEMO_MAGIC } from "./encodeGatewayMemo.ts";

/** Inverse of encodeGatewayMemo: `{ fingerprint, nonce }`, or null when the memo lacks the magic prefix. */
export function decodeGatewayMemo(memo: Hex): { fingerprint: Hex; nonce: bigint } | null {
  if (size(memo) !== 32 || !memo.toLowerCase().startsWith(GATEWAY_MEMO_MAGIC)) return null;
  return { fingerprint: slice(memo, 5, 15), nonce: BigInt(slice(memo, 23, 30)) };
}
