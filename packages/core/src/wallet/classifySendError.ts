/**
 * Whether a JSON-RPC error answered to `eth_sendRawTransactionSync` proves that the node refused the transaction
 * (it is not in the pool and never will be: release the reservation now) or leaves its fate open (it may be in the
 * pool and be included until its validBefore: keep the payment reserved and let the receipt decide).
 *
 * Refused: the node validated the transaction and said no — code -32003 "transaction rejected" (EIP-1474; what the
 * Tempo devnet answers for fee balance, validBefore, chain id, base fee), -32602 "invalid params" (the bytes do not
 * decode), -32000 "invalid input" (geth/reth pool validation: insufficient funds, intrinsic gas, fee cap, signature).
 *
 * Uncertain, whatever the code: a message saying the transaction is already known/imported, that its nonce is too low
 * (a payment signs nonce 0 on a lane of its own, so a used lane means this very transaction went in), a replacement, or
 * a timeout ("…added to the mempool but not processed…"); and every other code — 4/5 (EIP-7966 timeout/not ready),
 * -32603 internal error, -32005 limit exceeded, -32002 unavailable, anything unknown.
 * Transport failures (timeouts, dropped connections, HTTP 5xx, bodies that are not JSON-RPC) never reach this rule:
 * they are uncertain by construction.
 */
export type SendErrorClass = "refused" | "uncertain";

export const REFUSAL_CODES: readonly number[] = [-32003, -32602, -32000];

const MAY_BE_IN_THE_POOL =
  /already known|known transaction|already imported|already exists|already in|nonce too low|replacement|underpriced replacement|timeout|timed out|not processed|mempool|pending/i;

export function classifySendError(error: { code: unknown; message: unknown }): SendErrorClass {
  if (typeof error.code !== "number" || !REFUSAL_CODES.includes(error.code)) return "uncertain";
  const message = typeof error.message === "string" ? error.message : "";
  return MAY_BE_IN_THE_POOL.test(message) ? "uncertain" : "refused";
}
