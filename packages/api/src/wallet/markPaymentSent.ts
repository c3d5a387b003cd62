import type pg from "pg";

/**
 * A `reserved` payment becomes `sent`: its reservation becomes spending, in one statement. Only a row still `reserved`
 * moves, so a payment is settled once, whoever settles it (the paying request, a replay of its idempotency key, or the
 * reservation sweeper): the payment row is locked first (`FOR UPDATE` re-checks `reserved` on its latest version), then
 * the session is updated, then the payment records the session's spend_used_wei after it (what a replay answers).
 * Returns the session's spending after it, or null when the row was no longer `reserved`.
 *
 * Commits asynchronously (set_config … local = this statement's transaction): losing it in a database crash can only
 * leave the payment `reserved` — still counted against the cap, and settled later by the sweeper — never under-count
 * spending. The reservation (with the transaction hash, before the broadcast) is a normal, durable commit.
 */
export async function markPaymentSent(db: pg.Pool, paymentId: string, txHash: string): Promise<{ spendUsedWei: string; spendCapWei: string } | null> {
  const { rows } = await db.query<{ spend_used_wei: string; spend_cap_wei: string }>({
    name: "wallet-payment-sent", // planned once per pooled connection: it runs after every payment
    text: `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true)),
          p AS (SELECT session_id, amount_wei FROM wallet_payments WHERE id = $1 AND status = 'reserved' FOR UPDATE),
          s AS (UPDATE wallet_sessions s SET spend_reserved_wei = s.spend_reserved_wei - p.amount_wei, spend_used_wei = s.spend_used_wei + p.amount_wei
                  FROM p, cfg WHERE s.id = p.session_id
                RETURNING s.spend_used_wei, s.spend_cap_wei),
          u AS (UPDATE wallet_payments SET status = 'sent', tx_hash = $2, spend_used_wei_after = s.spend_used_wei, updated_at = now() FROM s WHERE id = $1)
     SELECT spend_used_wei::text AS spend_used_wei, spend_cap_wei::text AS spend_cap_wei FROM s`,
    values: [paymentId, txHash],
  });
  return rows[0] ? { spendUsedWei: rows[0].spend_used_wei, spendCapWei: rows[0].spend_cap_wei } : null;
}
