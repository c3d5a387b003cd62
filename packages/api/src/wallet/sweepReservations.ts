import type pg from "pg";
import type { Logger } from "pino";
import type { WalletChain } from "./chain.ts";
import { markPaymentFailed } from "./markPaymentFailed.ts";
import { purgeIdempotencyKeys } from "./purgeIdempotencyKeys.ts";
import { settleFromReceipt } from "./settleFromReceipt.ts";

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
 * - no transaction hash, reserved over `unsignedAfterMs` ago → never broadcast (pay reserves with the hash in one
 *   statement; a hash-less row is from before that, or written by hand) → `failed`, reservation released;
 * - a hash, and `settleAfterMs` past its validBefore → the chain decides: a successful receipt → `sent` (the amount
 *   becomes spending); no receipt (it can never be included now) or a reverted one → `failed`, released.
 *
 * A receipt lookup that fails leaves the row for the next sweep. Every move is conditional on the row still being
 * `reserved` (markPaymentSent/markPaymentFailed), so several API processes may sweep at once. `now` is an input.
 * Each sweep also purges idempotency keys older than 24 h (purgeIdempotencyKeys).
 */
export async function sweepReservations(
  deps: { db: pg.Pool; chain: Pick<WalletChain, "getReceipt">; log: Logger },
  now: Date,
  policy: SweepPolicy = DEFAULT_SWEEP_POLICY,
): Promise<{ sent: number; failed: number; left: number }> {
  const { rows } = await deps.db.query<{ id: string; tx_hash: string | null; valid_before: Date | null }>(
    `SELECT id, tx_hash, valid_before FROM wallet_payments
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
    const settled = await settleFromReceipt(
      deps,
      { id: row.id, tx_hash: row.tx_hash, valid_before: row.valid_before },
      now,
      policy.settleAfterMs,
      "the reservation sweeper",
    );
    if (settled.lookupError) {
      out.left++;
      deps.log.warn({ paymentId: row.id, txHash: row.tx_hash, err: settled.lookupError }, "wallet sweeper: receipt lookup failed; left for the next sweep");
    } else if (settled.outcome !== "left") out[settled.outcome]++;
  }
  const purged = await purgeIdempotencyKeys(deps.db, now);
  if (purged) deps.log.info({ purged }, "wallet sweeper: purged idempotency keys older than 24 h");
  if (out.sent || out.failed) deps.log.info(out, "wallet sweeper: settled reservations left by an interrupted payment");
  return out;
}
