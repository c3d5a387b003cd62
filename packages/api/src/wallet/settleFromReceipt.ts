import type pg from "pg";
import type { Hash } from "viem";
import type { WalletChain } from "./chain.ts";
import { markPaymentFailed } from "./markPaymentFailed.ts";
import { markPaymentSent } from "./markPaymentSent.ts";

export type SettleOutcome = "sent" | "failed" | "left";

/**
 * Settles one broadcast (`reserved`, with a hash) payment from the chain, once, whoever calls it (the reservation
 * sweeper, or a replay of the payment's idempotency key):
 * - a successful receipt → `sent` (the amount becomes spending), at any time;
 * - a reverted receipt → `failed`, released (it was mined: its nonce lane is used, it can never go through);
 * - no receipt → `failed` only once `validBefore` is more than `settleAfterMs` behind `now` (it can no longer be
 *   included), otherwise left `reserved`;
 * - the node cannot be asked → left (`lookupError` says why).
 * "sent"/"failed" mean this call moved the row; a row someone else settled meanwhile reads as "left".
 */
export async function settleFromReceipt(
  deps: { db: pg.Pool; chain: Pick<WalletChain, "getReceipt"> },
  row: { id: string; tx_hash: string; valid_before: Date | null },
  now: Date,
  settleAfterMs: number,
  who: string,
): Promise<{ outcome: SettleOutcome; lookupError?: string }> {
  let receipt;
  try {
    receipt = await deps.chain.getReceipt(row.tx_hash as Hash);
  } catch (error) {
    return { outcome: "left", lookupError: (error as Error).message.split("\n")[0]!.slice(0, 300) };
  }
  if (receipt?.status === "success") return { outcome: (await markPaymentSent(deps.db, row.id, receipt.transactionHash)) ? "sent" : "left" };
  if (receipt)
    return { outcome: (await markPaymentFailed(deps.db, row.id, `settled by ${who}: reverted (${receipt.transactionHash})`, null)) ? "failed" : "left" };
  const final = row.valid_before !== null && row.valid_before.getTime() < now.getTime() - settleAfterMs;
  if (!final) return { outcome: "left" };
  return { outcome: (await markPaymentFailed(deps.db, row.id, `settled by ${who}: not mined before it expired`, null)) ? "failed" : "left" };
}
