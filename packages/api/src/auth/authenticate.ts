import type { IncomingHttpHeaders } from "node:http";
import { hashToken } from "@agent-ledger/core";
import type pg from "pg";
import { ApiError } from "../errors.ts";

/** Name of the passkey user-session cookie (opaque token; only its SHA-256 is stored). */
export const USER_SESSION_COOKIE = "al_session";

/** 401 `unauthorized`, 403 `session_expired` / `session_revoked`: the ApiError of authentication (no mapping of its own). */
export class AuthError extends ApiError {
  override name = "AuthError";
}

export interface Principal {
  userId: string;
  via: "bearer" | "cookie";
  /** The wallet session (bearer) or user session (cookie) id. */
  sessionId: string;
}

export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers.cookie;
  if (!raw) return undefined;
  for (const part of raw.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value; // malformed escapes: the raw value simply matches no session (401), never a 500
      }
    }
  }
  return undefined;
}

/**
 * Who is calling (spec §5): `Authorization: Bearer <token>` of a paired wallet session — SHA-256 of the
 * presented token matched against `wallet_sessions.bearer_token_hash` — or the passkey user-session
 * cookie. Unknown/missing credentials → 401 `unauthorized`; a known bearer whose session is revoked or
 * expired → 403 `session_revoked` / `session_expired`. Returns null when no credential was presented
 * and `optional` is set.
 */
export async function authenticate(db: pg.Pool, headers: IncomingHttpHeaders, now: Date, options: { optional?: boolean } = {}): Promise<Principal | null> {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{16,512})$/.exec(authorization.trim());
    if (!match) throw new AuthError("unauthorized", "Authorization must be `Bearer <token>`");
    const { rows } = await db.query(
      "SELECT id, user_id, expires_at, revoked_at FROM wallet_sessions WHERE bearer_token_hash = $1",
      [hashToken(match[1]!)],
    );
    const session = rows[0];
    if (!session) throw new AuthError("unauthorized", "unknown bearer token");
    if (session.revoked_at) throw new AuthError("session_revoked", "this session was revoked");
    if (new Date(session.expires_at).getTime() <= now.getTime()) throw new AuthError("session_expired", "this session has expired");
    return { userId: session.user_id, via: "bearer", sessionId: session.id };
  }
  const cookie = readCookie(headers, USER_SESSION_COOKIE);
  if (cookie !== undefined) {
    const { rows } = await db.query("SELECT id, user_id, expires_at FROM user_sessions WHERE token_hash = $1", [hashToken(cookie)]);
    const session = rows[0];
    if (!session || new Date(session.expires_at).getTime() <= now.getTime()) throw new AuthError("unauthorized", "sign in again: the session cookie is unknown or expired");
    return { userId: session.user_id, via: "cookie", sessionId: session.id };
  }
  if (options.optional) return null;
  throw new AuthError("unauthorized", "authentication required: a paired session's bearer token or the passkey session cookie");
}
