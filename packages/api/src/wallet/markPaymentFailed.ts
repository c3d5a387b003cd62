import type pg from "pg";

/**
 * A `reserved` payment becomes `failed` and its reservation is released, in one statement; only a row still
 * `reserved` moves (see markPaymentSent). `txHash` null keeps the stored one. True when this call settled it.
 * Commits asynchronously for the same reason as markPaymentSent: a lost release leaves the payment `reserved`.
 */
export async function markPaymentFailed(db: pg.Pool, paymentId: string, error: string, txHash: string | null): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true)),
          p AS (UPDATE wallet_payments SET status = 'failed', error = $2, tx_hash = coalesce($3, tx_hash), updated_at = now()
                WHERE id = $1 AND status = 'reserved' RETURNING session_id, amount_wei)
     UPDATE wallet_sessions s SET spend_reserved_wei = s.spend_reserved_wei - p.amount_wei FROM p, cfg WHERE s.id = p.session_id`,
    [paymentId, error, txHash],
  );
  return (rowCount ?? 0) > 0;
}
