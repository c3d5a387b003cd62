// The rows an authenticated request carries: the wallet session of a bearer token and the passkey user of a session
// cookie (loaded once per request by authenticate.ts; wallet/bearer.ts and wallet/userSession.ts hand them out).

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

/** A bearer token's wallet session with what paying needs (its owner, sealed agent key, managed account). */
export interface BearerSession extends SessionRow {
  user_id: string;
  agent_key_ciphertext: string;
  managed_address: string;
}

/** Columns of a BearerSession (aliases `s` = wallet_sessions, `u` = wallet_users). */
export const SESSION_COLUMNS = `${SESSION_ROW_COLUMNS}, s.user_id, s.agent_key_ciphertext, u.managed_address`;

/** A passkey user (wallet_users). */
export interface WalletUserRow {
  id: string;
  credential_id: string;
  public_key_hex: string;
  managed_address: string;
  passkey_sign_count: string;
  cose_public_key: Buffer;
}

/** The signed-in user of a session cookie, with that user session's id. */
export type CookieUser = WalletUserRow & { session_id: string };
