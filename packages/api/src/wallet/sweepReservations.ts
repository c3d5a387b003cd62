import type pg from "pg";
import type { Hash } from "viem";
import type { Logger } from "pino";
import type { WalletChain } from "./chain.ts";
import { markPaymentFailed } from "./markPaymentFailed.ts";
import { markPaymentSent } from "./markPaymentSent.ts";

export interface SweepPolicy {
  /** A reservation with no transaction hash this old was never signed by a live request: release it. */
  unsignedAfterMs: number;
  /** How long after the transaction's validBefore its outcome is final (it can no longer be included). */
  settleAfterMs: number;
  /** Rows per sweep. */
  limit: number;
}

export const DEFAULT_SWEEP_POLICY: SweepPolicy = { unsignedAfterMs: 10 * 60_000, settleAfterMs: 60_000, limit: 100 };

/**
 * Settles the payments a crashed or killed API process left `reserved` (still counted against their session's cap):
 *
 * - no transaction hash, reserved over `unsignedAfterMs` ago → never broadcast (the hash is stored durably before the
 *   broadcast) → `failed`, reservation released;
 * - a hash, and `settleAfterMs` past its validBefore → the chain decides: a successful receipt → `sent` (the amount
 *   becomes spending); no receipt (it can never be included now) or a reverted one → `failed`, released.
 *
 * A receipt lookup that fails leaves the row for the next sweep. Every move is conditional on the row still being
 * `reserved` (markPaymentSent/markPaymentFailed), so several API processes may sweep at once. `now` is an input.
 */
export async function sweepReservations(
  deps: { db: pg.Pool; chain: Pick<WalletChain, "getReceipt">; log: Logger },
  now: Date,
  policy: SweepPolicy = DEFAULT_SWEEP_POLICY,
): Promise<{ sent: number; failed: number; left: number }> {
  const { rows } = await deps.db.query<{ id: string; tx_hash: string | null }>(
    `SELECT id, tx_hash FROM wallet_payments
      WHERE status = 'reserved'
        AND ((tx_hash IS NULL AND created_at < $1) OR valid_before < $2)
      ORDER BY created_at LIMIT $3`,
    [new Date(now.getTime() - policy.unsignedAfterMs), new Date(now.getTime() - policy.settleAfterMs), policy.limit],
  );
  const out = { sent: 0, failed: 0, left: 0 };
  for (const row of rows) {
    if (row.tx_hash === null) {
      if (await markPaymentFailed(deps.db, row.id, "released by the reservation sweeper: never broadcast", null)) out.failed++;
      continue;
    }
    let receipt;
    try {
      receipt = await deps.chain.getReceipt(row.tx_hash as Hash);
    } catch (error) {
      out.left++;
      deps.log.warn({ paymentId: row.id, txHash: row.tx_hash, err: (error as Error).message }, "wallet sweeper: receipt lookup failed; left for the next sweep");
      continue;
    }
    if (receipt?.status === "success") {
      if (await markPaymentSent(deps.db, row.id, receipt.transactionHash)) out.sent++;
    } else {
      const why = receipt ? `reverted (${receipt.transactionHash})` : "not mined before it expired";
      if (await markPaymentFailed(deps.db, row.id, `settled by the reservation sweeper: ${why}`, null)) out.failed++;
    }
  }
  if (out.sent || out.failed) deps.log.info(out, "wallet sweeper: settled reservations left by an interrupted payment");
  return out;
}
