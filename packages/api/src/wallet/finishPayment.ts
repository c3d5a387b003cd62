import type { Broadcast } from "./broadcastPayment.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { markPaymentFailed } from "./markPaymentFailed.ts";
import { markPaymentSent } from "./markPaymentSent.ts";
import type { PayInput } from "./parsePayInput.ts";
import type { PayTiming } from "./payTiming.ts";
import { loadPayment, paymentAnswer, pendingBody, PENDING_RETRY_AFTER_SECONDS } from "./paymentOutcome.ts";
import type { Reservation } from "./reservePayment.ts";
import { WalletError } from "./WalletError.ts";

/** performance.now() at the start of the request, after the checks, after signing and after the reservation. */
export interface PayMarks {
  t0: number;
  tAuth: number;
  tSigned: number;
  tReserve: number;
}

/**
 * Records what the chain said and answers: a failure → payment failed, reservation released, 500 payment_failed;
 * no receipt → left reserved for its receipt or the sweeper, 202 payment_pending; a receipt → sent, 200. Settling
 * commits asynchronously (markPaymentSent): a lost update leaves the payment `reserved`, never under-counted.
 */
export async function finishPayment(
  ctx: WalletContext,
  p: {
    paymentId: string;
    session: Reservation;
    input: PayInput;
    txHash: string | null;
    validBefore: number | null;
    outcome: Broadcast;
    marks: PayMarks;
    timing?: (t: PayTiming) => void;
  },
): Promise<WalletResponse> {
  const { paymentId, session, input, txHash, outcome, marks, timing } = p;
  const { receipt, failure, chainMs } = outcome;
  const token = session.token_address as `0x${string}`;
  if (failure) {
    await markPaymentFailed(ctx.db, paymentId, failure, txHash);
    ctx.log.warn({ paymentId, sessionId: session.id, txHash, reason: failure }, "wallet: payment failed");
    timing?.({ totalMs: performance.now() - marks.t0, chainMs });
    throw new WalletError("payment_failed", `payment failed: ${failure}`);
  }
  if (!receipt) {
    ctx.log.warn(
      { paymentId, sessionId: session.id, txHash, reason: outcome.uncertain },
      "wallet: payment outcome unknown; left reserved for its receipt or the sweeper",
    );
    timing?.({ totalMs: performance.now() - marks.t0, chainMs });
    return {
      status: 202,
      body: pendingBody(ctx, {
        tx_hash: txHash,
        valid_before: new Date(p.validBefore! * 1000),
        from: session.managed_address,
        to: input.to,
        amount_wei: input.amount.toString(),
        memo: input.memo.memo,
        token,
      }),
      headers: { "retry-after": String(PENDING_RETRY_AFTER_SECONDS) },
    };
  }

  const after = await markPaymentSent(ctx.db, paymentId, receipt.transactionHash);
  if (!after) {
    // Settled meanwhile by a replay of its key or the sweeper (from the same receipt): answer what it recorded.
    const settled = await loadPayment(ctx, paymentId);
    if (!settled) throw new Error(`wallet payment ${paymentId} disappeared`);
    return paymentAnswer(ctx, settled);
  }
  const result = {
    tx_hash: receipt.transactionHash,
    explorer_url: ctx.config.explorerBaseUrl ? `${ctx.config.explorerBaseUrl}/tx/${receipt.transactionHash}` : null,
    from: session.managed_address,
    to: input.to,
    amount_wei: input.amount.toString(),
    memo: input.memo.memo,
    token,
    spend_used_wei_after: after.spendUsedWei,
    spend_cap_wei: after.spendCapWei,
  };
  const totalMs = performance.now() - marks.t0;
  const { t0, tAuth, tSigned, tReserve } = marks;
  timing?.({
    totalMs,
    chainMs,
    stages: { authMs: tAuth - t0, reserveMs: tReserve - tSigned, signMs: tSigned - tAuth, finishMs: totalMs - (tReserve - t0) - chainMs },
  });
  ctx.log.info(
    { paymentId, sessionId: session.id, txHash: receipt.transactionHash, amountWei: result.amount_wei, overheadMs: Math.round((totalMs - chainMs) * 10) / 10 },
    "wallet: payment sent",
  );
  return { body: result, headers: { "server-timing": `app;dur=${(totalMs - chainMs).toFixed(2)}, chain;dur=${chainMs.toFixed(2)}` } };
}
