import type { IncomingMessage } from "node:http";
import { sessionStatus } from "@agent-ledger/core";
import { loadBearerSession, remainingWei, type BearerSession } from "./bearer.ts";
import type { WalletContext, WalletResponse } from "./context.ts";

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function view(s: BearerSession, now: Date) {
  const status = sessionStatus({ expiresAt: new Date(s.expires_at), revokedAt: s.revoked_at, onChainAuthorizedAt: s.on_chain_authorized_at }, now);
  return {
    session_id: s.id,
    status,
    agent_label: s.agent_label,
    agent_key_address: s.agent_key_address,
    managed_address: s.managed_address,
    token: s.token_address,
    spend_cap_wei: s.spend_cap_wei,
    per_call_cap_wei: s.per_call_cap_wei,
    spend_used_wei: s.spend_used_wei,
    spend_reserved_wei: s.spend_reserved_wei,
    spend_remaining_wei: remainingWei(s),
    expires_at: iso(s.expires_at),
    revoked_at: iso(s.revoked_at),
    on_chain_authorized_at: iso(s.on_chain_authorized_at),
    authorize_tx_hash: s.authorize_tx_hash,
    created_at: iso(s.created_at),
  };
}

/** GET /api/wallet/session (bearer): caps, usage, expiry, status — also for expired/revoked sessions. */
export async function getSession(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  return { body: view(await loadBearerSession(ctx, req), ctx.now()) };
}

/** POST /api/wallet/session/revoke (bearer): marks the session revoked (idempotent; first revocation time kept). */
export async function revokeSession(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const s = await loadBearerSession(ctx, req);
  const { rows } = await ctx.db.query<{ revoked_at: Date }>(
    "UPDATE wallet_sessions SET revoked_at = COALESCE(revoked_at, $2), revoked_by = COALESCE(revoked_by, 'agent') WHERE id = $1 RETURNING revoked_at",
    [s.id, ctx.now()],
  );
  ctx.log.info({ sessionId: s.id }, "wallet: session revoked");
  return { body: { session_id: s.id, status: "revoked", revoked_at: iso(rows[0]!.revoked_at) } };
}
