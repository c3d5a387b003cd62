import type { ErrorCode } from "../errors.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { loadPayment, paymentAnswer } from "./paymentOutcome.ts";
import { settleFromReceipt } from "./settleFromReceipt.ts";
import { DEFAULT_SWEEP_POLICY } from "./sweepReservations.ts";
import { WalletError } from "./WalletError.ts";

const REPLAYED = { "idempotent-replayed": "true" };

/**
 * A request whose Idempotency-Key this session already used: the first attempt's result, never a second payment.
 * Another body → 409 idempotency_key_reused; a refusal → the same refusal; a payment → its current answer (a pending
 * one is first settled from its receipt when the chain has it); the first request still deciding → 409 in use.
 */
export async function replayPayment(ctx: WalletContext, sessionId: string, key: string, hash: string): Promise<WalletResponse> {
  const { rows } = await ctx.db.query<{ request_hash: string; payment_id: string; refusal_code: string | null; refusal_message: string | null }>(
    "SELECT request_hash, payment_id, refusal_code, refusal_message FROM wallet_idempotency_keys WHERE session_id = $1 AND key = $2",
    [sessionId, key],
  );
  const k = rows[0];
  // Purged between the insert attempt and this read (older than the retention): the key is free again; ask to retry.
  if (!k) throw new WalletError("idempotency_key_in_use", "this Idempotency-Key is being released; retry", { "retry-after": "1" });
  if (k.request_hash !== hash) throw new WalletError("idempotency_key_reused", "this Idempotency-Key was used with a different request body");
  if (k.refusal_code) throw new WalletError(k.refusal_code as ErrorCode, k.refusal_message ?? k.refusal_code, REPLAYED);
  let p = await loadPayment(ctx, k.payment_id);
  if (!p)
    throw new WalletError("idempotency_key_in_use", "the first request with this Idempotency-Key is still being processed; retry", { "retry-after": "1" });
  if (p.status === "reserved" && p.tx_hash) {
    const settled = await settleFromReceipt(
      ctx,
      { id: p.id, tx_hash: p.tx_hash, valid_before: p.valid_before },
      ctx.now(),
      DEFAULT_SWEEP_POLICY.settleAfterMs,
      "a replay of its idempotency key",
    );
    if (settled.outcome !== "left") p = (await loadPayment(ctx, k.payment_id))!;
  }
  return paymentAnswer(ctx, p, REPLAYED);
}
