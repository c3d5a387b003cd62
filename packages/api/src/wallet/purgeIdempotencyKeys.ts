import type pg from "pg";

/** How long a payment's idempotency key is kept at least (docs/wallet.md § Idempotency keys). */
export const IDEMPOTENCY_KEY_RETENTION_MS = 24 * 60 * 60_000;

/**
 * Deletes idempotency keys older than `retentionMs` (default 24 h), at most `limit` per call (oldest first), except
 * those whose payment is still `reserved` (kept until it is settled). Returns how many were deleted. `now` is an input.
 */
export async function purgeIdempotencyKeys(db: pg.Pool, now: Date, retentionMs = IDEMPOTENCY_KEY_RETENTION_MS, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM wallet_idempotency_keys k USING (
       SELECT session_id, key FROM wallet_idempotency_keys o
        WHERE o.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM wallet_payments p WHERE p.id = o.payment_id AND p.status = 'reserved')
        ORDER BY o.created_at LIMIT $2
     ) old
     WHERE k.session_id = old.session_id AND k.key = old.key`,
    [new Date(now.getTime() - retentionMs), limit],
  );
  return rowCount ?? 0;
}
