import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { assertActive } from "./assertActive.ts";
import { bearerTokenHash, loadBearerSession } from "./bearer.ts";
import { broadcastPayment } from "./broadcastPayment.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { finishPayment } from "./finishPayment.ts";
import type { PayTiming } from "./payTiming.ts";
import { payRequestHash } from "./payRequestHash.ts";
import { readPayRequest } from "./readPayRequest.ts";
import { refusePayment } from "./refusePayment.ts";
import { replayPayment } from "./replayPayment.ts";
import { reservePayment } from "./reservePayment.ts";
import { loadSigner } from "./sessionSigner.ts";
import { NOT_SIGNED, signPayment } from "./signPayment.ts";
import { WalletError } from "./WalletError.ts";

export type { PayTiming } from "./payTiming.ts";

const unauthorized = () => new WalletError("unauthorized", "unknown access token", { "www-authenticate": "Bearer" });

/**
 * POST /api/wallet/pay (bearer) `{ to, amount_wei, memo?, token? }`, optional `Idempotency-Key` header. Order of
 * checks: 401 → 403 session state → 400 body/key → replay of a used key (409 on another body) → 403 caps (reserved
 * atomically, with the key) → chain: 200 sent; 500 payment_failed only when the transaction certainly did not and
 * cannot go through (the reservation is released); 202 payment_pending when its outcome is unknown (docs/wallet.md).
 */
export async function pay(ctx: WalletContext, req: IncomingMessage, timing?: (t: PayTiming) => void): Promise<WalletResponse> {
  const t0 = performance.now();
  const bearerHash = bearerTokenHash(req.headers.authorization);
  const request = await readPayRequest(req);
  const now = ctx.now();
  if (request.error) {
    assertActive(await loadBearerSession(ctx, req), now);
    throw request.error;
  }
  const { input, key } = request;
  const hash = key === null ? null : payRequestHash(input);
  const configured = !!(ctx.config.masterKey && ctx.chain.sponsor && ctx.config.rpcUrl);
  const paymentId = randomUUID();
  const tAuth = performance.now();

  // Signed before the reservation, so that the reservation, the payment row and its transaction hash are one durable
  // commit: a `reserved` row carries its hash from the start, and a crash after it leaves a row the sweeper settles from
  // the chain after validBefore (a transaction is valid only until then). A request refused below (caps, state, a
  // replayed key) drops its signed transaction unsent. A signing failure (chain id or gas price unavailable) still
  // reserves and then records the payment failed, as a failure after the reservation always did.
  const signer = await loadSigner(ctx, bearerHash);
  if (!signer) throw unauthorized();
  const signed = configured ? await signPayment(ctx, signer, input, paymentId) : NOT_SIGNED;
  const tSigned = performance.now();

  const session = await reservePayment(ctx.db, {
    bearerHash,
    sessionId: signer.sessionId,
    paymentId,
    amount: input.amount,
    to: input.to,
    token: input.token,
    memo: input.memo.memo,
    now,
    configured,
    idempotencyKey: key,
    requestHash: hash,
    txHash: signed.txHash,
    validBefore: signed.validBefore,
  });
  if (!session) throw unauthorized();
  if (key !== null && configured && !session.key_claimed) return replayPayment(ctx, session.id, key, hash!);
  if (!session.payment_id) throw await refusePayment(ctx, session, input, now, key);
  const tReserve = performance.now();

  const outcome = signed.raw ? await broadcastPayment(ctx, signed) : { receipt: null, failure: signed.failure, uncertain: null, chainMs: 0 };
  return finishPayment(ctx, {
    paymentId: session.payment_id,
    session,
    input,
    txHash: signed.txHash,
    validBefore: signed.validBefore,
    outcome,
    marks: { t0, tAuth, tSigned, tReserve },
    timing,
  });
}
