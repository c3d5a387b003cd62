import type { Hash, Hex } from "viem";
import { NodeRejectedError, type WalletReceipt } from "./chain.ts";
import type { WalletContext } from "./context.ts";

/** What the chain said: a receipt (maybe reverted), a certain failure, or nothing yet (`uncertain`: why). */
export interface Broadcast {
  receipt: WalletReceipt | null;
  /** The payment certainly did not and cannot go through. */
  failure: string | null;
  /** No receipt and no certain failure: the transaction may still be included until validBefore. */
  uncertain: string | null;
  chainMs: number;
}

/**
 * Sends the signed transaction and waits for its receipt. A refusal by the node or a revert is a failure; a timeout,
 * dropped connection, HTTP error or an answer that is not a refusal leaves the outcome unknown: the receipt is then
 * awaited until validBefore, and without one the payment stays reserved.
 */
export async function broadcastPayment(ctx: WalletContext, signed: { raw: Hex; txHash: Hash; validBefore: number }): Promise<Broadcast> {
  let receipt: WalletReceipt | null = null;
  let failure: string | null = null;
  let uncertain: string | null = null;
  const c0 = performance.now();
  try {
    receipt = await ctx.chain.sendRawSync(signed.raw, ctx.config.paymentValiditySeconds * 1000 + 2_000);
  } catch (error) {
    if (error instanceof NodeRejectedError) {
      failure = `the node refused the transaction: ${error.message}`;
    } else {
      // The transaction may be in the pool and may still be included until validBefore. Only its receipt can tell.
      uncertain = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : String(error);
      const waitMs = Math.max(0, signed.validBefore * 1000 + 2_000 - Date.now());
      receipt = await ctx.chain.waitForReceipt(signed.txHash, waitMs, 500);
    }
  }
  const chainMs = performance.now() - c0;
  if (receipt && receipt.status !== "success") failure = `the transaction reverted (${receipt.transactionHash})`;
  return { receipt, failure, uncertain, chainMs };
}
