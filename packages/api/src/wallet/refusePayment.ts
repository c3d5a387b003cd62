import { checkPaymentCaps } from "@agent-ledger/core";
import { assertActive } from "./assertActive.ts";
import { SESSION_COLUMNS, type BearerSession } from "./bearer.ts";
import type { WalletContext } from "./context.ts";
import type { PayInput } from "./parsePayInput.ts";
import { WalletError } from "./WalletError.ts";

/**
 * Why the reservation statement reserved nothing, in the order 403 state → 400 token → 503 configuration → 403 caps.
 * A claimed idempotency key remembers the refusal: a retry with it gets the same answer (docs/wallet.md § Idempotency
 * keys). Returns the error to throw.
 */
export async function refusePayment(
  ctx: WalletContext,
  session: BearerSession & { key_claimed: boolean },
  input: PayInput,
  now: Date,
  key: string | null,
): Promise<WalletError> {
  const refusal = await refusalOf(ctx, session, input, now);
  if (key !== null && session.key_claimed) {
    await ctx.db.query("UPDATE wallet_idempotency_keys SET refusal_code = $3, refusal_message = $4 WHERE session_id = $1 AND key = $2", [
      session.id,
      key,
      refusal.code,
      refusal.message,
    ]);
  }
  return refusal;
}

async function refusalOf(ctx: WalletContext, session: BearerSession, input: PayInput, now: Date): Promise<WalletError> {
  try {
    assertActive(session, now);
    if (input.token && input.token !== session.token_address) return new WalletError("invalid_token", `this session can only pay in ${session.token_address}`);
    if (!ctx.config.masterKey) return new WalletError("not_configured", "the wallet has no master key (SECRETS_MASTER_KEY)");
    if (!ctx.chain.sponsor) return new WalletError("not_configured", "the wallet has no gas sponsor (SPONSOR_PRIVATE_KEY)");
    if (!ctx.config.rpcUrl) return new WalletError("not_configured", "the wallet has no chain (TEMPO_RPC_URL)");
    // the caps refused it: name which (fresh read; a concurrent payment may have taken the room)
    const { rows: fresh } = await ctx.db.query(`SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.id = $1`, [
      session.id,
    ]);
    const s = fresh[0] as BearerSession;
    assertActive(s, now);
    const violation = checkPaymentCaps({
      amount: input.amount,
      perCallCap: BigInt(s.per_call_cap_wei),
      spendCap: BigInt(s.spend_cap_wei),
      used: BigInt(s.spend_used_wei),
      reserved: BigInt(s.spend_reserved_wei),
    });
    if (violation === "per_call_cap_exceeded") return new WalletError(violation, `amount_wei is above the per-call cap of ${s.per_call_cap_wei}`);
    const left = BigInt(s.spend_cap_wei) - BigInt(s.spend_used_wei) - BigInt(s.spend_reserved_wei);
    return new WalletError(
      "spend_cap_exceeded",
      `amount_wei is above what is left of the spend cap (${left < 0n ? 0n : left} of ${s.spend_cap_wei}, in-flight payments included)`,
    );
  } catch (error) {
    if (error instanceof WalletError) return error;
    throw error;
  }
}
