import type { IncomingMessage } from "node:http";
import { hashToken } from "@agent-ledger/core";
import type { WalletContext } from "./context.ts";
import { WalletError } from "./WalletError.ts";

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]{16,512})$/;

/** The wallet_sessions columns every reader of a session uses (the agent's bearer calls and the owner's console). */
export interface SessionRow {
  id: string;
  agent_label: string | null;
  agent_key_address: string;
  token_address: string;
  spend_cap_wei: string;
  per_call_cap_wei: string;
  spend_used_wei: string;
  spend_reserved_wei: string;
  expires_at: Date;
  revoked_at: Date | null;
  on_chain_authorized_at: Date | null;
  authorize_tx_hash: string | null;
  created_at: Date;
}

/** The columns of a SessionRow (alias `s` = wallet_sessions; amounts as exact decimal text). */
export const SESSION_ROW_COLUMNS = `s.id, s.agent_label, s.agent_key_address, s.token_address,
  s.spend_cap_wei::text AS spend_cap_wei, s.per_call_cap_wei::text AS per_call_cap_wei, s.spend_used_wei::text AS spend_used_wei,
  s.spend_reserved_wei::text AS spend_reserved_wei, s.expires_at, s.revoked_at, s.on_chain_authorized_at, s.authorize_tx_hash, s.created_at`;

export interface BearerSession extends SessionRow {
  user_id: string;
  agent_key_ciphertext: string;
  managed_address: string;
}

/** Columns of a BearerSession (aliases `s` = wallet_sessions, `u` = wallet_users). */
export const SESSION_COLUMNS = `${SESSION_ROW_COLUMNS}, s.user_id, s.agent_key_ciphertext, u.managed_address`;

/** Cap − spent − reserved, never negative, as an exact decimal string. */
export function remainingWei(s: Pick<SessionRow, "spend_cap_wei" | "spend_used_wei" | "spend_reserved_wei">): string {
  const remaining = BigInt(s.spend_cap_wei) - BigInt(s.spend_used_wei) - BigInt(s.spend_reserved_wei);
  return (remaining < 0n ? 0n : remaining).toString();
}

/** SHA-256 of the presented bearer token; 401 when the header is missing or malformed. */
export function bearerTokenHash(header: string | undefined): string {
  if (header === undefined) throw new WalletError("unauthorized", "missing Authorization: Bearer <access_token>", { "www-authenticate": "Bearer" });
  const match = BEARER.exec(header.trim());
  if (!match) throw new WalletError("unauthorized", "Authorization must be `Bearer <access_token>`", { "www-authenticate": "Bearer" });
  return hashToken(match[1]!);
}

/** The wallet session of `Authorization: Bearer <token>` (SHA-256 compared with bearer_token_hash); 401 otherwise. */
export async function loadBearerSession(ctx: WalletContext, req: IncomingMessage): Promise<BearerSession> {
  const { rows } = await ctx.db.query<BearerSession>(
    `SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.bearer_token_hash = $1`,
    [bearerTokenHash(req.headers.authorization)],
  );
  if (!rows[0]) throw new WalletError("unauthorized", "unknown access token", { "www-authenticate": "Bearer" });
  return rows[0];
}
