import type { IncomingMessage } from "node:http";
import { generateToken, hashToken } from "@agent-ledger/core";
import { cookieUser, USER_SESSION_COOKIE } from "../auth/authenticate.ts";
import type { CookieUser, WalletUserRow } from "../auth/sessionRows.ts";
import type { WalletContext } from "./context.ts";
import { serializeCookie } from "./cookies.ts";

export type { WalletUserRow } from "../auth/sessionRows.ts";

export const USER_SESSION_TTL_SECONDS = 30 * 60;

/**
 * The signed-in passkey user of the `al_session` cookie; 401 `unauthorized` without a live one. The request's one
 * authentication step (auth/authenticate.ts) loaded it already on a `cookie` route: this hands out that load.
 */
export function requireUser(ctx: WalletContext, req: IncomingMessage): Promise<CookieUser> {
  return cookieUser(ctx.db, req.headers, ctx.now());
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
