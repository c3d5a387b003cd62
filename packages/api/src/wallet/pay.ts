import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { checkPaymentCaps, encodeMemo, isAddress, parseIdempotencyKey, parsePositiveWei, sessionStatus, type WalletSessionStatus } from "@agent-ledger/core";
import { encodeFunctionData, keccak256, type Hash, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { bearerTokenHash, loadBearerSession, SESSION_COLUMNS, type BearerSession } from "./bearer.ts";
import { NodeRejectedError, type WalletReceipt } from "./chain.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { BodyError, readJsonObject } from "../http/readBody.ts";
import { markPaymentFailed } from "./markPaymentFailed.ts";
import { markPaymentSent } from "./markPaymentSent.ts";
import { loadPayment, paymentAnswer, pendingBody, PENDING_RETRY_AFTER_SECONDS } from "./paymentOutcome.ts";
import { DEFAULT_SWEEP_POLICY } from "./sweepReservations.ts";
import { settleFromReceipt } from "./settleFromReceipt.ts";
import { loadSigner, signerAccount } from "./sessionSigner.ts";
import { WalletError } from "./WalletError.ts";
import type { ErrorCode } from "../errors.ts";

const STATE_ERRORS: Record<Exclude<WalletSessionStatus, "active">, [code: "session_revoked" | "session_expired" | "session_not_authorized", message: string]> = {
  revoked: ["session_revoked", "this session was revoked"],
  expired: ["session_expired", "this session has expired: pair again"],
  not_authorized: ["session_not_authorized", "this session's key is not authorized on chain yet"],
};

export function assertActive(s: Pick<BearerSession, "expires_at" | "revoked_at" | "on_chain_authorized_at">, now: Date): void {
  const status = sessionStatus({ expiresAt: new Date(s.expires_at), revokedAt: s.revoked_at, onChainAuthorizedAt: s.on_chain_authorized_at }, now);
  if (status !== "active") {
    const [code, message] = STATE_ERRORS[status];
    throw new WalletError(code, message);
  }
}

/** Timings of one payment (ms): everything the server does, and the part spent waiting for the chain. */
export interface PayTiming {
  totalMs: number;
  chainMs: number;
  /**
   * Where the rest went: body parsing; the session's signer (cached per bearer) + key decryption + signing; bearer
   * check + cap reservation + payment row with its transaction hash (one statement); ledger write after the receipt.
   */
  stages?: { authMs: number; reserveMs: number; signMs: number; finishMs: number };
}

interface PayInput {
  amount: bigint;
  to: `0x${string}`;
  /** The token asked for (lowercase), or null: the session's. */
  token: string | null;
  memo: Extract<ReturnType<typeof encodeMemo>, { ok: true }>;
}

function parsePayInput(body: Record<string, unknown>): PayInput {
  const amount = parsePositiveWei(body.amount_wei);
  if (amount === null) throw new WalletError("invalid_amount", "amount_wei must be a positive integer string (base units, ≤ 2^256-1)");
  if (!isAddress(body.to)) throw new WalletError("invalid_address", "to must be an address (0x + 40 hex)");
  let token: string | null = null;
  if (body.token !== undefined && body.token !== null) {
    if (!isAddress(body.token)) throw new WalletError("invalid_address", "token must be an address (0x + 40 hex)");
    token = body.token.toLowerCase();
  }
  const memo = encodeMemo(body.memo);
  if (!memo.ok) throw new WalletError("invalid_memo", memo.reason);
  return { amount, to: body.to.toLowerCase() as `0x${string}`, token, memo };
}

/** UUID → 128-bit integer: the payment's own 2D nonce lane (one transaction per lane, nonce 0). */
function nonceKeyOf(paymentId: string): bigint {
  return BigInt(`0x${paymentId.replace(/-/g, "")}`);
}

/** SHA-256 of the normalized request: what "the same body" means for an idempotency key. */
function requestHash(input: PayInput): string {
  return createHash("sha256").update(JSON.stringify([input.to, input.amount.toString(), input.token, input.memo.memo])).digest("hex");
}

const REPLAYED = { "idempotent-replayed": "true" };

/**
 * A request whose Idempotency-Key this session already used: the first attempt's result, never a second payment.
 * Another body → 409 idempotency_key_reused; a refusal → the same refusal; a payment → its current answer (a pending
 * one is first settled from its receipt when the chain has it); the first request still deciding → 409 in use.
 */
async function replay(ctx: WalletContext, sessionId: string, key: string, hash: string): Promise<WalletResponse> {
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
  if (!p) throw new WalletError("idempotency_key_in_use", "the first request with this Idempotency-Key is still being processed; retry", { "retry-after": "1" });
  if (p.status === "reserved" && p.tx_hash) {
    const settled = await settleFromReceipt(ctx, { id: p.id, tx_hash: p.tx_hash, valid_before: p.valid_before }, ctx.now(), DEFAULT_SWEEP_POLICY.settleAfterMs, "a replay of its idempotency key");
    if (settled.outcome !== "left") p = (await loadPayment(ctx, k.payment_id))!;
  }
  return paymentAnswer(ctx, p, REPLAYED);
}

/**
 * POST /api/wallet/pay (bearer) `{ to, amount_wei, memo?, token? }`, optional `Idempotency-Key` header. Order of
 * checks: 401 → 403 session state → 400 body/key → replay of a used key (409 on another body) → 403 caps (reserved
 * atomically, with the key) → chain: 200 sent; 500 payment_failed only when the transaction certainly did not and
 * cannot go through (the reservation is released); 202 payment_pending when its outcome is unknown (docs/wallet.md).
 */
export async function pay(ctx: WalletContext, req: IncomingMessage, timing?: (t: PayTiming) => void): Promise<WalletResponse> {
  const t0 = performance.now();
  const bearerHash = bearerTokenHash(req.headers.authorization);
  // The body is read and checked first, but its errors are reported after 401/403 (order: 401 → 403 state → 400 → 403 caps).
  let input: PayInput | WalletError | BodyError;
  try {
    input = parsePayInput(await readJsonObject(req));
  } catch (error) {
    if (!(error instanceof WalletError || error instanceof BodyError)) throw error;
    input = error;
  }
  const idem = parseIdempotencyKey(req.headers["idempotency-key"]);
  if (!idem.ok && !(input instanceof WalletError || input instanceof BodyError)) input = new WalletError("invalid_idempotency_key", idem.reason);
  const now = ctx.now();
  if (input instanceof WalletError || input instanceof BodyError) {
    assertActive(await loadBearerSession(ctx, req), now);
    throw input;
  }
  const { amount, to, token: askedToken, memo } = input;
  const key = idem.ok ? idem.key : null;
  const hash = key === null ? null : requestHash(input);
  const masterKey = ctx.config.masterKey;
  const sponsor = ctx.chain.sponsor;
  const configured = !!(masterKey && sponsor && ctx.config.rpcUrl);
  const newPaymentId = randomUUID();
  const tAuth = performance.now();

  // Signed before the reservation, so that the reservation, the payment row and its transaction hash are one durable
  // commit: a `reserved` row carries its hash from the start, and a crash after it leaves a row the sweeper settles from
  // the chain after validBefore (a transaction is valid only until then). A request refused below (caps, state, a
  // replayed key) drops its signed transaction unsent. A signing failure (chain id or gas price unavailable) still
  // reserves and then records the payment failed, as a failure after the reservation always did.
  const signer = await loadSigner(ctx, bearerHash);
  if (!signer) throw new WalletError("unauthorized", "unknown access token", { "www-authenticate": "Bearer" });
  let failure: string | null = null;
  let txHash: Hash | null = null;
  let validBefore: number | null = null;
  let raw: Hex | null = null;
  if (configured) {
    try {
      const [chainId, maxFeePerGas] = await Promise.all([ctx.chain.chainId(), ctx.chain.maxFeePerGas()]);
      validBefore = Math.floor(Date.now() / 1000) + ctx.config.paymentValiditySeconds;
      // The key is decrypted only here, to sign; it is not kept (sessionSigner.ts).
      raw = (await signerAccount(signer, masterKey!).signTransaction({
        type: "tempo",
        chainId,
        nonce: 0,
        nonceKey: nonceKeyOf(newPaymentId),
        validBefore,
        gas: ctx.config.paymentGas,
        maxFeePerGas,
        maxPriorityFeePerGas: 0n,
        feeToken: ctx.config.defaultToken,
        calls: [{ to: signer.tokenAddress, data: encodeFunctionData({ abi: Abis.tip20, functionName: "transferWithMemo", args: [to, amount, memo.bytes32] }) }],
        feePayer: sponsor!,
      } as never)) as Hex;
      txHash = keccak256(raw);
    } catch (error) {
      // Nothing can be broadcast: the payment certainly does not happen.
      failure = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : "signing failed";
      raw = txHash = validBefore = null;
    }
  }
  const tSigned = performance.now();

  // One statement: find the session by its bearer hash, claim the idempotency key (if any), reserve the amount under
  // every condition (state, token, caps) and insert the payment row with its transaction hash. The caps hold under
  // concurrency: the UPDATE re-checks them on the latest row version. The key is claimed first and gates the
  // reservation: a second request with the key waits on its primary key until the first commits, then claims nothing
  // and reserves nothing. The session must be the one the transaction was signed for ($11).
  const { rows } = await ctx.db.query<BearerSession & { payment_id: string | null; key_claimed: boolean }>({
    // Named: each pooled connection parses and plans this statement once, not on every payment (planning it took
    // ~0.8 ms of the database's time per call on a loaded machine).
    name: "wallet-pay-reserve",
    text: `WITH s AS (
       SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.bearer_token_hash = $1 AND s.id = $11::uuid
     ), k AS (
       INSERT INTO wallet_idempotency_keys (session_id, key, request_hash, payment_id)
       SELECT id, $9::text, $10::text, $8::uuid FROM s WHERE $9::text IS NOT NULL AND $7
       ON CONFLICT DO NOTHING RETURNING payment_id
     ), r AS (
       UPDATE wallet_sessions w SET spend_reserved_wei = w.spend_reserved_wei + $2::numeric
         FROM s
        WHERE w.id = s.id AND w.revoked_at IS NULL AND w.expires_at > $3 AND w.on_chain_authorized_at IS NOT NULL
          AND ($5::text IS NULL OR w.token_address = $5) AND $7 AND ($9::text IS NULL OR EXISTS (SELECT 1 FROM k))
          AND $2::numeric <= w.per_call_cap_wei AND w.spend_used_wei + w.spend_reserved_wei + $2::numeric <= w.spend_cap_wei
        RETURNING w.id, w.token_address
     ), p AS (
       INSERT INTO wallet_payments (id, session_id, to_address, amount_wei, token_address, memo, status, tx_hash, valid_before)
       SELECT $8::uuid, id, $4, $2::numeric, token_address, $6, 'reserved', $12::text, to_timestamp($13::double precision) FROM r RETURNING id
     )
     SELECT s.*, (SELECT id FROM p) AS payment_id, EXISTS (SELECT 1 FROM k) AS key_claimed FROM s`,
    values: [bearerHash, amount.toString(), now, to, askedToken, memo.memo, configured, newPaymentId, key, hash, signer.sessionId, txHash, validBefore],
  });
  const session = rows[0];
  if (!session) throw new WalletError("unauthorized", "unknown access token", { "www-authenticate": "Bearer" });
  if (key !== null && configured && !session.key_claimed) return replay(ctx, session.id, key, hash!);
  const paymentId = session.payment_id;
  if (!paymentId) {
    const refusal = await refusalOf(ctx, session, input, now);
    // The claimed key remembers the refusal: a retry with it gets the same answer (docs/wallet.md § Idempotency keys).
    if (key !== null && session.key_claimed) {
      await ctx.db.query("UPDATE wallet_idempotency_keys SET refusal_code = $3, refusal_message = $4 WHERE session_id = $1 AND key = $2", [session.id, key, refusal.code, refusal.message]);
    }
    throw refusal;
  }
  const token = session.token_address as `0x${string}`;
  const tReserve = performance.now();

  let receipt: WalletReceipt | null = null;
  let chainMs = 0;
  let uncertain: string | null = null;
  if (!failure) {
    const c0 = performance.now();
    try {
      receipt = await ctx.chain.sendRawSync(raw!, ctx.config.paymentValiditySeconds * 1000 + 2_000);
    } catch (error) {
      if (error instanceof NodeRejectedError) {
        failure = `the node refused the transaction: ${error.message}`;
      } else {
        // Timeout, dropped connection, HTTP error, an answer that is not a refusal: the transaction may be in the pool
        // and may still be included until validBefore. Only its receipt can tell; without one it stays reserved.
        uncertain = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : String(error);
        const waitMs = Math.max(0, validBefore! * 1000 + 2_000 - Date.now());
        receipt = await ctx.chain.waitForReceipt(txHash!, waitMs, 500);
      }
    }
    chainMs = performance.now() - c0;
    if (receipt && receipt.status !== "success") failure = `the transaction reverted (${receipt.transactionHash})`;
  }

  // Settling commits asynchronously (markPaymentSent): a lost update leaves the payment `reserved`, never under-counted.
  if (failure) {
    await markPaymentFailed(ctx.db, paymentId, failure, txHash);
    ctx.log.warn({ paymentId, sessionId: session.id, txHash, reason: failure }, "wallet: payment failed");
    timing?.({ totalMs: performance.now() - t0, chainMs });
    throw new WalletError("payment_failed", `payment failed: ${failure}`);
  }
  if (!receipt) {
    ctx.log.warn({ paymentId, sessionId: session.id, txHash, reason: uncertain }, "wallet: payment outcome unknown; left reserved for its receipt or the sweeper");
    timing?.({ totalMs: performance.now() - t0, chainMs });
    return {
      status: 202,
      body: pendingBody(ctx, { tx_hash: txHash, valid_before: new Date(validBefore! * 1000), from: session.managed_address, to, amount_wei: amount.toString(), memo: memo.memo, token }),
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
    to,
    amount_wei: amount.toString(),
    memo: memo.memo,
    token,
    spend_used_wei_after: after.spendUsedWei,
    spend_cap_wei: after.spendCapWei,
  };
  const totalMs = performance.now() - t0;
  timing?.({ totalMs, chainMs, stages: { authMs: tAuth - t0, reserveMs: tReserve - tSigned, signMs: tSigned - tAuth, finishMs: totalMs - (tReserve - t0) - chainMs } });
  ctx.log.info({ paymentId, sessionId: session.id, txHash: receipt.transactionHash, amountWei: result.amount_wei, overheadMs: Math.round((totalMs - chainMs) * 10) / 10 }, "wallet: payment sent");
  return { body: result, headers: { "server-timing": `app;dur=${(totalMs - chainMs).toFixed(2)}, chain;dur=${chainMs.toFixed(2)}` } };
}

/** Why the reservation statement reserved nothing, in the order 403 state → 400 token → 503 configuration → 403 caps. */
async function refusalOf(ctx: WalletContext, session: BearerSession, input: PayInput, now: Date): Promise<WalletError> {
  try {
    assertActive(session, now);
    if (input.token && input.token !== session.token_address) return new WalletError("invalid_token", `this session can only pay in ${session.token_address}`);
    if (!ctx.config.masterKey) return new WalletError("not_configured", "the wallet has no master key (SECRETS_MASTER_KEY)");
    if (!ctx.chain.sponsor) return new WalletError("not_configured", "the wallet has no gas sponsor (SPONSOR_PRIVATE_KEY)");
    if (!ctx.config.rpcUrl) return new WalletError("not_configured", "the wallet has no chain (TEMPO_RPC_URL)");
    // the caps refused it: name which (fresh read; a concurrent payment may have taken the room)
    const { rows: fresh } = await ctx.db.query(`SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.id = $1`, [session.id]);
    const s = fresh[0] as BearerSession;
    assertActive(s, now);
    const violation = checkPaymentCaps({ amount: input.amount, perCallCap: BigInt(s.per_call_cap_wei), spendCap: BigInt(s.spend_cap_wei), used: BigInt(s.spend_used_wei), reserved: BigInt(s.spend_reserved_wei) });
    if (violation === "per_call_cap_exceeded") return new WalletError(violation, `amount_wei is above the per-call cap of ${s.per_call_cap_wei}`);
    const left = BigInt(s.spend_cap_wei) - BigInt(s.spend_used_wei) - BigInt(s.spend_reserved_wei);
    return new WalletError("spend_cap_exceeded", `amount_wei is above what is left of the spend cap (${left < 0n ? 0n : left} of ${s.spend_cap_wei}, in-flight payments included)`);
  } catch (error) {
    if (error instanceof WalletError) return error;
    throw error;
  }
}
