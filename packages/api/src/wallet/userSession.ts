import type { IncomingMessage } from "node:http";
import { generateToken, hashToken } from "@agent-ledger/core";
import { USER_SESSION_COOKIE } from "../auth/authenticate.ts";
import type { WalletContext } from "./context.ts";
import { readCookieSafe, serializeCookie } from "./cookies.ts";
import { WalletError } from "./WalletError.ts";

export const USER_SESSION_TTL_SECONDS = 30 * 60;

export interface WalletUserRow {
  id: string;
  credential_id: string;
  public_key_hex: string;
  managed_address: string;
  passkey_sign_count: string;
  cose_public_key: Buffer;
}

/** The signed-in passkey user of the `al_session` cookie; 401 `unauthorized` without a live one. */
export async function requireUser(ctx: WalletContext, req: IncomingMessage): Promise<WalletUserRow & { session_id: string }> {
  const token = readCookieSafe(req.headers.cookie, USER_SESSION_COOKIE);
  if (!token) throw new WalletError("unauthorized", "sign in with your passkey first (no session cookie)");
  const { rows } = await ctx.db.query(
    `SELECT s.id AS session_id, u.id, u.credential_id, u.public_key_hex, u.managed_address, u.passkey_sign_count::text, u.cose_public_key
       FROM user_sessions s JOIN wallet_users u ON u.id = s.user_id
      WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [hashToken(token), ctx.now()],
  );
  if (!rows[0]) throw new WalletError("unauthorized", "sign in again: the session cookie is unknown or expired");
  return rows[0];
}

/** Starts a 30-minute user session; returns its Set-Cookie value (opaque token, only its SHA-256 stored). */
export async function startUserSession(ctx: WalletContext, userId: string): Promise<string> {
  const token = generateToken("", 32);
  await ctx.db.query("INSERT INTO user_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, $3)", [
    hashToken(token),
    userId,
    new Date(ctx.now().getTime() + USER_SESSION_TTL_SECONDS * 1000),
  ]);
  return serializeCookie(USER_SESSION_COOKIE, token, { maxAgeSeconds: USER_SESSION_TTL_SECONDS, path: "/", secure: ctx.config.production });
}

export function userView(u: Pick<WalletUserRow, "id" | "credential_id" | "public_key_hex" | "managed_address">) {
  return { user_id: u.id, managed_address: u.managed_address, credential_id: u.credential_id, public_key_uncompressed: u.public_key_hex };
}
