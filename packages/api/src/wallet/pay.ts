import type { IncomingMessage } from "node:http";
import { checkPaymentCaps, encodeMemo, isAddress, openSecret, parsePositiveWei, sessionStatus, type WalletSessionStatus } from "@agent-ledger/core";
import { encodeFunctionData, keccak256, type Hash, type Hex } from "viem";
import { Abis, Account } from "viem/tempo";
import { bearerTokenHash, loadBearerSession, SESSION_COLUMNS, type BearerSession } from "./bearer.ts";
import { NodeRejectedError, type WalletReceipt } from "./chain.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { BodyError, readJsonObject } from "../http/readBody.ts";
import { markPaymentFailed } from "./markPaymentFailed.ts";
import { markPaymentSent } from "./markPaymentSent.ts";
import { WalletError } from "./WalletError.ts";

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
  /** Where the rest went: body parsing, bearer lookup + cap reservation (one statement), key decryption + signing, ledger write after the receipt. */
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

/**
 * POST /api/wallet/pay (bearer) `{ to, amount_wei, memo?, token? }`. Order of checks: 401 → 403 session state →
 * 400 body → 403 caps (reserved atomically) → chain (500 payment_failed releases the reservation).
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
  const now = ctx.now();
  if (input instanceof WalletError || input instanceof BodyError) {
    assertActive(await loadBearerSession(ctx, req), now);
    throw input;
  }
  const { amount, to, token: askedToken, memo } = input;
  const masterKey = ctx.config.masterKey;
  const sponsor = ctx.chain.sponsor;
  const tAuth = performance.now();

  // One statement: find the session by its bearer hash, reserve the amount under every condition (state, token, caps),
  // and insert the payment row. The caps hold under concurrency: the UPDATE re-checks them on the latest row version.
  const { rows } = await ctx.db.query<BearerSession & { payment_id: string | null }>(
    `WITH s AS (
       SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.bearer_token_hash = $1
     ), r AS (
       UPDATE wallet_sessions w SET spend_reserved_wei = w.spend_reserved_wei + $2::numeric
         FROM s
        WHERE w.id = s.id AND w.revoked_at IS NULL AND w.expires_at > $3 AND w.on_chain_authorized_at IS NOT NULL
          AND ($5::text IS NULL OR w.token_address = $5) AND $7
          AND $2::numeric <= w.per_call_cap_wei AND w.spend_used_wei + w.spend_reserved_wei + $2::numeric <= w.spend_cap_wei
        RETURNING w.id, w.token_address
     ), p AS (
       INSERT INTO wallet_payments (session_id, to_address, amount_wei, token_address, memo, status)
       SELECT id, $4, $2::numeric, token_address, $6, 'reserved' FROM r RETURNING id
     )
     SELECT s.*, (SELECT id FROM p) AS payment_id FROM s`,
    [bearerHash, amount.toString(), now, to, askedToken, memo.memo, !!(masterKey && sponsor && ctx.config.rpcUrl)],
  );
  const session = rows[0];
  if (!session) throw new WalletError("unauthorized", "unknown access token", { "www-authenticate": "Bearer" });
  const paymentId = session.payment_id;
  if (!paymentId) {
    assertActive(session, now);
    if (askedToken && askedToken !== session.token_address) throw new WalletError("invalid_token", `this session can only pay in ${session.token_address}`);
    if (!masterKey) throw new WalletError("not_configured", "the wallet has no master key (SECRETS_MASTER_KEY)");
    if (!sponsor) throw new WalletError("not_configured", "the wallet has no gas sponsor (SPONSOR_PRIVATE_KEY)");
    if (!ctx.config.rpcUrl) throw new WalletError("not_configured", "the wallet has no chain (TEMPO_RPC_URL)");
    // the caps refused it: name which (fresh read; a concurrent payment may have taken the room)
    const { rows: fresh } = await ctx.db.query(`SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.id = $1`, [session.id]);
    const s = fresh[0] as BearerSession;
    assertActive(s, now);
    const violation = checkPaymentCaps({ amount, perCallCap: BigInt(s.per_call_cap_wei), spendCap: BigInt(s.spend_cap_wei), used: BigInt(s.spend_used_wei), reserved: BigInt(s.spend_reserved_wei) });
    if (violation === "per_call_cap_exceeded") throw new WalletError(violation, `amount_wei is above the per-call cap of ${s.per_call_cap_wei}`);
    const left = BigInt(s.spend_cap_wei) - BigInt(s.spend_used_wei) - BigInt(s.spend_reserved_wei);
    throw new WalletError("spend_cap_exceeded", `amount_wei is above what is left of the spend cap (${left < 0n ? 0n : left} of ${s.spend_cap_wei}, in-flight payments included)`);
  }
  const token = session.token_address as `0x${string}`;
  const tReserve = performance.now();

  let receipt: WalletReceipt | null = null;
  let failure: string | null = null;
  let txHash: Hash | null = null;
  let chainMs = 0;
  let tSign = performance.now();
  try {
    const [chainId, maxFeePerGas] = await Promise.all([ctx.chain.chainId(), ctx.chain.maxFeePerGas()]);
    const validBefore = Math.floor(Date.now() / 1000) + ctx.config.paymentValiditySeconds;
    // The key is decrypted only here, to sign; it is not kept.
    const agent = Account.fromSecp256k1(openSecret(session.agent_key_ciphertext, masterKey!, session.id) as Hex, { access: session.managed_address as `0x${string}` });
    const raw = await agent.signTransaction({
      type: "tempo",
      chainId,
      nonce: 0,
      nonceKey: nonceKeyOf(paymentId),
      validBefore,
      gas: ctx.config.paymentGas,
      maxFeePerGas,
      maxPriorityFeePerGas: 0n,
      feeToken: ctx.config.defaultToken,
      calls: [{ to: token, data: encodeFunctionData({ abi: Abis.tip20, functionName: "transferWithMemo", args: [to, amount, memo.bytes32] }) }],
      feePayer: sponsor!,
    } as never);
    txHash = keccak256(raw as Hex);
    // Durable before the broadcast: a `reserved` row without a hash was never sent, one with a hash can be looked up
    // after validBefore (sweepReservations settles what a crashed process left).
    const recorded = await ctx.db.query("UPDATE wallet_payments SET tx_hash = $2, valid_before = to_timestamp($3) WHERE id = $1 AND status = 'reserved'", [paymentId, txHash, validBefore]);
    // Not reserved any more (the sweeper released a request that stalled for minutes): never broadcast it.
    if (recorded.rowCount !== 1) throw new Error("the reservation was released before the payment was signed");
    tSign = performance.now();
    const c0 = tSign;
    try {
      receipt = await ctx.chain.sendRawSync(raw as Hex, ctx.config.paymentValiditySeconds * 1000 + 2_000);
    } catch (error) {
      if (error instanceof NodeRejectedError) {
        failure = `the node refused the transaction: ${error.message}`;
      } else {
        // timeout or network: the transaction may still land until validBefore; after that it never can
        const waitMs = Math.max(0, validBefore * 1000 + 2_000 - Date.now());
        receipt = await ctx.chain.waitForReceipt(txHash, waitMs, 500);
        if (!receipt) failure = "the transaction was not mined before it expired";
      }
    }
    chainMs = performance.now() - c0;
    if (receipt && receipt.status !== "success") failure = `the transaction reverted (${receipt.transactionHash})`;
  } catch (error) {
    failure = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : "signing failed";
  }

  // Settling commits asynchronously (markPaymentSent): a lost update leaves the payment `reserved`, never under-counted.
  if (failure || !receipt) {
    await markPaymentFailed(ctx.db, paymentId, failure ?? "no receipt", txHash);
    ctx.log.warn({ paymentId, sessionId: session.id, txHash, reason: failure }, "wallet: payment failed");
    timing?.({ totalMs: performance.now() - t0, chainMs });
    throw new WalletError("payment_failed", `payment failed: ${failure ?? "no receipt"}`);
  }

  const after = await markPaymentSent(ctx.db, paymentId, receipt.transactionHash);
  if (!after) throw new Error(`wallet payment ${paymentId} left the reserved state unexpectedly`);
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
  timing?.({ totalMs, chainMs, stages: { authMs: tAuth - t0, reserveMs: tReserve - tAuth, signMs: tSign - tReserve, finishMs: totalMs - (tSign - t0) - chainMs } });
  ctx.log.info({ paymentId, sessionId: session.id, txHash: receipt.transactionHash, amountWei: result.amount_wei, overheadMs: Math.round((totalMs - chainMs) * 10) / 10 }, "wallet: payment sent");
  return { body: result, headers: { "server-timing": `app;dur=${(totalMs - chainMs).toFixed(2)}, chain;dur=${chainMs.toFixed(2)}` } };
}
