import type { IncomingMessage } from "node:http";
import { loadBearerSession } from "./bearer.ts";
import type { WalletContext, WalletResponse } from "./context.ts";

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/**
 * GET /api/wallet/payments?limit= (bearer; walletInputs.ts PAYMENTS_QUERY): the session's payments, newest first (`limit` 1–100, default 20), each
 * `{ id, status: reserved | sent | failed, to, amount_wei, token, memo, tx_hash, error, created_at, updated_at }`.
 * Readable for expired and revoked sessions too (like GET /api/wallet/session). Used by the MCP tool `list_payments`.
 */
export async function listPayments(ctx: WalletContext, req: IncomingMessage, limit: number): Promise<WalletResponse> {
  const session = await loadBearerSession(ctx, req);
  const { rows } = await ctx.db.query<{
    id: string;
    status: string;
    to_address: string;
    amount_wei: string;
    token_address: string;
    memo: string | null;
    tx_hash: string | null;
    error: string | null;
    created_at: Date;
    updated_at: Date;
  }>(
    `SELECT id, status, to_address, amount_wei::text AS amount_wei, token_address, memo, tx_hash, error, created_at, updated_at
       FROM wallet_payments WHERE session_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [session.id, limit],
  );
  return {
    body: {
      session_id: session.id,
      items: rows.map((p) => ({
        id: p.id,
        status: p.status,
        to: p.to_address,
        amount_wei: p.amount_wei,
        token: p.token_address,
        memo: p.memo,
        tx_hash: p.tx_hash,
        error: p.error,
        created_at: iso(p.created_at),
        updated_at: iso(p.updated_at),
      })),
    },
  };
}
