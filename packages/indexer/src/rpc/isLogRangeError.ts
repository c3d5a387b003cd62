import { RpcError } from "./createRpcClient.ts";

const RANGE_MESSAGES =
  /block range|range (is )?too (large|wide)|too many (logs|results|blocks)|query returned more than|response (size|too large)|limit exceeded|exceed(s|ed)? .*(limit|max)|max(imum)? .*(range|results)|payload too large/i;

/**
 * True when a node refused an `eth_getLogs` because the range or the answer is too big (the fix is a
 * smaller range), as opposed to an outage (the fix is to wait and retry the same range).
 */
export function isLogRangeError(error: unknown): boolean {
  if (!(error instanceof RpcError)) return false;
  if (error.code === -32005) return true;
  return RANGE_MESSAGES.test(error.message);
}
