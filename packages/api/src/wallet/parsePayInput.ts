import { encodeMemo, isAddress, parsePositiveWei } from "@agent-ledger/core";
import { WalletError } from "./WalletError.ts";

/** A checked payment request body. */
export interface PayInput {
  amount: bigint;
  to: `0x${string}`;
  /** The token asked for (lowercase), or null: the session's. */
  token: string | null;
  memo: Extract<ReturnType<typeof encodeMemo>, { ok: true }>;
}

/** `{ to, amount_wei, memo?, token? }` → PayInput; 400 WalletError (invalid_amount, invalid_address, invalid_memo). */
export function parsePayInput(body: Record<string, unknown>): PayInput {
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
