import type { IncomingHttpHeaders } from "node:http";
import { hashToken } from "@agent-ledger/core";
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { Auth } from "../routes/Route.ts";
import { readCookie } from "./readCookie.ts";
import { SESSION_COLUMNS, type BearerSession, type CookieUser } from "./sessionRows.ts";

export { readCookie } from "./readCookie.ts";

/** Name of the passkey user-session cookie (opaque token; only its SHA-256 is stored). */
export const USER_SESSION_COOKIE = "al_session";

/** 401 `unauthorized`, 403 `session_expired` / `session_revoked`: the ApiError of authentication (no mapping of its own). */
export class AuthError extends ApiError {
  override name = "AuthError";
}

/** Who is calling, with the session that proved it (loaded once per request). */
export type Principal =
  | { via: "bearer"; userId: string; sessionId: string; session: BearerSession }
  | { via: "cookie"; userId: string; sessionId: string; user: CookieUser };

export interface AuthenticateOptions {
  /** Which credential counts (default `either`: a bearer header if sent, else the cookie). `none` reads nothing. */
  mode?: Auth;
  /** Without any credential: null instead of 401. */
  optional?: boolean;
  /** A revoked or expired bearer session still authenticates (the wallet's own session reads show its state). */
  allowInactive?: boolean;
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]{16,512})$/;

// Per request (keyed by its headers object): each credential is looked up at most once, whoever asks (the router's
// authentication step, then a wallet handler's requireUser / loadBearerSession, or a GraphQL resolver).
const bearerLoads = new WeakMap<IncomingHttpHeaders, Promise<BearerSession | undefined>>();
const cookieLoads = new WeakMap<IncomingHttpHeaders, Promise<CookieUser | undefined>>();

/** SHA-256 of the presented bearer token; 401 when the header is missing or malformed. */
export function bearerTokenHash(header: string | undefined): string {
  if (header === undefined) throw new AuthError("unauthorized", "missing Authorization: Bearer <access_token>", { "www-authenticate": "Bearer" });
  const match = BEARER.exec(header.trim());
  if (!match) throw new AuthError("unauthorized", "Authorization must be `Bearer <token>`", { "www-authenticate": "Bearer" });
  return hashToken(match[1]!);
}

function loadBearer(db: pg.Pool, headers: IncomingHttpHeaders): Promise<BearerSession | undefined> {
  let load = bearerLoads.get(headers);
  if (!load) {
    const hash = bearerTokenHash(headers.authorization);
    load = db
      .query<BearerSession>(`SELECT ${SESSION_COLUMNS} FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.bearer_token_hash = $1`, [hash])
      .then(({ rows }) => rows[0]);
    bearerLoads.set(headers, load);
  }
  return load;
}

function loadCookie(db: pg.Pool, headers: IncomingHttpHeaders, token: string): Promise<CookieUser | undefined> {
  let load = cookieLoads.get(headers);
  if (!load) {
    load = db
      .query<CookieUser & { expires_at: Date }>(
        `SELECT s.id AS session_id, s.expires_at, u.id, u.credential_id, u.public_key_hex, u.managed_address, u.passkey_sign_count::text, u.cose_public_key
           FROM user_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.token_hash = $1`,
        [hashToken(token)],
      )
      .then(({ rows }) => rows[0]);
    cookieLoads.set(headers, load);
  }
  return load;
}

/** The wallet session of `Authorization: Bearer <token>` (SHA-256 compared with bearer_token_hash), whatever its state; 401 otherwise. */
export async function bearerSession(db: pg.Pool, headers: IncomingHttpHeaders): Promise<BearerSession> {
  const session = await loadBearer(db, headers);
  if (!session) throw new AuthError("unauthorized", "unknown bearer token", { "www-authenticate": "Bearer" });
  return session;
}

/** The signed-in passkey user of the `al_session` cookie; 401 without a live one (the one expiry check of a user session). */
export async function cookieUser(db: pg.Pool, headers: IncomingHttpHeaders, now: Date): Promise<CookieUser> {
  const token = readCookie(headers, USER_SESSION_COOKIE);
  if (token === undefined || token === "") throw new AuthError("unauthorized", "sign in with your passkey first (no session cookie)");
  const row = (await loadCookie(db, headers, token)) as (CookieUser & { expires_at?: Date }) | undefined;
  if (!row || new Date(row.expires_at!).getTime() <= now.getTime())
    throw new AuthError("unauthorized", "sign in again: the session cookie is unknown or expired");
  const { expires_at: _, ...user } = row;
  return user;
}

/**
 * The one authentication step (spec §5), run by the router before a handler (routes/createRouter.ts) and by GraphQL:
 * `Authorization: Bearer <token>` of a paired wallet session — SHA-256 of the presented token matched against
 * `wallet_sessions.bearer_token_hash` — or the passkey user-session cookie, as `mode` allows. Unknown/missing
 * credentials → 401 `unauthorized`; a known bearer whose session is revoked or expired → 403 `session_revoked` /
 * `session_expired` (unless `allowInactive`). With `either`, a sent Authorization header decides alone. Returns null
 * when no credential was presented and `optional` is set (and always for `none`).
 */
export async function authenticate(db: pg.Pool, headers: IncomingHttpHeaders, now: Date, options: AuthenticateOptions = {}): Promise<Principal | null> {
  const mode = options.mode ?? "either";
  if (mode === "none") return null;
  if (mode !== "cookie" && (headers.authorization !== undefined || mode === "bearer")) {
    if (headers.authorization === undefined && options.optional) return null;
    const session = await bearerSession(db, headers);
    if (!options.allowInactive) {
      if (session.revoked_at) throw new AuthError("session_revoked", "this session was revoked");
      if (new Date(session.expires_at).getTime() <= now.getTime()) throw new AuthError("session_expired", "this session has expired");
    }
    return { via: "bearer", userId: session.user_id, sessionId: session.id, session };
  }
  if (readCookie(headers, USER_SESSION_COOKIE) !== undefined || mode === "cookie") {
    if (readCookie(headers, USER_SESSION_COOKIE) === undefined && options.optional) return null;
    const user = await cookieUser(db, headers, now);
    return { via: "cookie", userId: user.id, sessionId: user.session_id, user };
  }
  if (options.optional) return null;
  throw new AuthError("unauthorized", "authentication required: a paired session's bearer token or the passkey session cookie");
}
