import type { WalletContext, WalletResponse } from "./context.ts";
import { WalletError } from "./WalletError.ts";

/** Seconds a client is told to wait before asking again about a pending payment (`Retry-After`). */
export const PENDING_RETRY_AFTER_SECONDS = 3;

export interface PaymentFacts {
  id: string;
  status: "reserved" | "sent" | "failed";
  tx_hash: string | null;
  valid_before: Date | null;
  error: string | null;
  to_address: string;
  amount_wei: string;
  memo: string | null;
  token_address: string;
  spend_used_wei_after: string | null;
  spend_used_wei: string;
  spend_cap_wei: string;
  managed_address: string;
}

/** One payment with what its answer needs (null when there is no such row). */
export async function loadPayment(ctx: Pick<WalletContext, "db">, paymentId: string): Promise<PaymentFacts | null> {
  const { rows } = await ctx.db.query<PaymentFacts>(
    `SELECT p.id, p.status, p.tx_hash, p.valid_before, p.error, p.to_address, p.amount_wei::text AS amount_wei, p.memo, p.token_address,
            p.spend_used_wei_after::text AS spend_used_wei_after, s.spend_used_wei::text AS spend_used_wei, s.spend_cap_wei::text AS spend_cap_wei,
            u.managed_address
       FROM wallet_payments p JOIN wallet_sessions s ON s.id = p.session_id JOIN wallet_users u ON u.id = s.user_id
      WHERE p.id = $1`,
    [paymentId],
  );
  return rows[0] ?? null;
}

/** The 202 body of a payment whose outcome is not known yet (docs/wallet.md § Uncertain outcomes). */
export function pendingBody(
  ctx: Pick<WalletContext, "config">,
  p: { tx_hash: string | null; valid_before: Date | null; from: string; to: string; amount_wei: string; memo: string | null; token: string },
) {
  return {
    status: "pending",
    code: "payment_pending",
    message: p.tx_hash
      ? "the transaction was broadcast but its outcome is not known yet; it stays reserved until its receipt (or its expiry) settles it — ask again with the same Idempotency-Key"
      : "the payment is being signed; ask again with the same Idempotency-Key",
    tx_hash: p.tx_hash,
    explorer_url: p.tx_hash && ctx.config.explorerBaseUrl ? `${ctx.config.explorerBaseUrl}/tx/${p.tx_hash}` : null,
    valid_before: p.valid_before ? p.valid_before.toISOString() : null,
    from: p.from,
    to: p.to,
    amount_wei: p.amount_wei,
    memo: p.memo,
    token: p.token,
  };
}

/**
 * The answer a payment's current state gives: `sent` → 200 with the payment's result (spend_used_wei_after as
 * recorded when it was counted), `failed` → 500 payment_failed with its reason, `reserved` → 202 payment_pending.
 */
export function paymentAnswer(ctx: Pick<WalletContext, "config">, p: PaymentFacts, headers: Record<string, string> = {}): WalletResponse {
  if (p.status === "failed") throw new WalletError("payment_failed", `payment failed: ${p.error ?? "unknown reason"}`, headers);
  if (p.status === "reserved") {
    return {
      status: 202,
      body: pendingBody(ctx, {
        tx_hash: p.tx_hash,
        valid_before: p.valid_before,
        from: p.managed_address,
        to: p.to_address,
        amount_wei: p.amount_wei,
        memo: p.memo,
        token: p.token_address,
      }),
      headers: { "retry-after": String(PENDING_RETRY_AFTER_SECONDS), ...headers },
    };
  }
  return {
    body: {
      tx_hash: p.tx_hash,
      explorer_url: ctx.config.explorerBaseUrl ? `${ctx.config.explorerBaseUrl}/tx/${p.tx_hash}` : null,
      from: p.managed_address,
      to: p.to_address,
      amount_wei: p.amount_wei,
      memo: p.memo,
      token: p.token_address,
      spend_used_wei_after: p.spend_used_wei_after ?? p.spend_used_wei,
      spend_cap_wei: p.spend_cap_wei,
    },
    headers,
  };
}
