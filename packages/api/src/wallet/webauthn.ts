import type { IncomingMessage } from "node:http";
import { checkSignCounter, hashToken, passkeyAddress } from "@agent-ledger/core";
import { inTransaction } from "@agent-ledger/db";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { randomUUID } from "node:crypto";
import { USER_SESSION_COOKIE } from "../auth/authenticate.ts";
import { coseToUncompressed } from "./coseKey.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { readCookieSafe, serializeCookie } from "./cookies.ts";
import { readJsonObject } from "../http/readBody.ts";
import { requireUser, startUserSession, userView, type WalletUserRow } from "./userSession.ts";
import { WalletError } from "./WalletError.ts";

export const CHALLENGE_COOKIE = "al_webauthn";
const CHALLENGE_TTL_SECONDS = 300;
const CHALLENGE_PATH = "/api/wallet/webauthn";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ES256 = -7;

type Purpose = "register" | "auth";

function challengeCookie(ctx: WalletContext, value: string, maxAgeSeconds: number): string {
  return serializeCookie(CHALLENGE_COOKIE, value, { maxAgeSeconds, path: CHALLENGE_PATH, secure: ctx.config.production });
}

/**
 * Stores a challenge for the requesting client (its rate-limit address key) and bounds what nobody comes back for
 * (docs/wallet.md § Rate limits): expired challenges are deleted, and a client keeps only its newest
 * `challengesPerClient` ones (the insert commits before the trim, so the last trim to run sees every insert).
 */
async function storeChallenge(
  ctx: WalletContext,
  req: IncomingMessage,
  challenge: string,
  purpose: Purpose,
  extra: { userId?: string; displayName?: string | null } = {},
): Promise<string> {
  const now = ctx.now();
  const clientKey = ctx.limits.clientKey(req);
  // Both trims skip rows another request holds (SKIP LOCKED): concurrent options calls never wait on each other's
  // deletes, so they cannot deadlock (a rare 500 seen in the fuzz under load); a skipped row is being deleted anyway.
  await ctx.db.query("DELETE FROM webauthn_challenges WHERE id IN (SELECT id FROM webauthn_challenges WHERE expires_at <= $1 FOR UPDATE SKIP LOCKED)", [now]);
  const { rows } = await ctx.db.query(
    "INSERT INTO webauthn_challenges (challenge, purpose, user_id, display_name, expires_at, client_key) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    [challenge, purpose, extra.userId ?? null, extra.displayName ?? null, new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000), clientKey],
  );
  // One client's trims run one at a time (a transaction-scoped advisory lock on its key): each then reads, after the
  // lock, every row the others left, so the last one keeps exactly the newest `challengesPerClient`. With SKIP LOCKED
  // here instead, a trim skipped the rows a concurrent trim held and counted its OFFSET past them: 6 rows of 5 could
  // remain (seen in CI under load). Rows of other clients are never waited on.
  await inTransaction(ctx.db, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('webauthn_challenges:' || $1, 0))", [clientKey]);
    await client.query(
      `DELETE FROM webauthn_challenges WHERE id IN (
         SELECT id FROM webauthn_challenges WHERE client_key = $1 ORDER BY expires_at DESC, id DESC OFFSET $2)`,
      [clientKey, ctx.config.challengesPerClient],
    );
  });
  return rows[0].id as string;
}

/** Takes the challenge named by the cookie out of the database (deleted whatever happens next). */
async function consumeChallenge(
  ctx: WalletContext,
  req: IncomingMessage,
  purpose: Purpose,
): Promise<{ challenge: string; user_id: string | null; display_name: string | null }> {
  const id = readCookieSafe(req.headers.cookie, CHALLENGE_COOKIE);
  if (!id || !UUID.test(id)) throw new WalletError("challenge_not_found", "no WebAuthn challenge: call the options endpoint first");
  const { rows } = await ctx.db.query("DELETE FROM webauthn_challenges WHERE id = $1 RETURNING challenge, purpose, user_id, display_name, expires_at", [id]);
  const row = rows[0];
  if (!row || row.purpose !== purpose) throw new WalletError("challenge_not_found", "the WebAuthn challenge is unknown or was already used");
  if (new Date(row.expires_at).getTime() <= ctx.now().getTime()) throw new WalletError("challenge_not_found", "the WebAuthn challenge expired; start again");
  return row;
}

const isStr = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length < 16_384;
/** A credential id as the browser sends it: base64url without padding, at most 1023 bytes (WebAuthn §6.1). */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{1,1364}$/;
/** An AuthenticatorTransport value ("usb", "nfc", "ble", "smart-card", "hybrid", "internal", and future ones of that shape). */
const TRANSPORT = /^[a-z][a-z-]{0,31}$/;

/** The credential's `id` and `rawId` (the same base64url string): refused before they reach a query. */
function checkCredentialIds(body: Record<string, unknown>): void {
  if (!CREDENTIAL_ID.test(body.id as string) || body.rawId !== body.id)
    throw new WalletError("invalid_body", "id and rawId must be the same base64url credential id (at most 1023 bytes)");
}

function asRegistration(body: Record<string, unknown>): RegistrationResponseJSON {
  const r = body.response as Record<string, unknown> | undefined;
  if (
    !isStr(body.id) ||
    !isStr(body.rawId) ||
    body.type !== "public-key" ||
    typeof r !== "object" ||
    r === null ||
    !isStr(r.clientDataJSON) ||
    !isStr(r.attestationObject)
  ) {
    throw new WalletError("invalid_body", "expected a RegistrationResponseJSON (id, rawId, type, response.clientDataJSON, response.attestationObject)");
  }
  if (
    r.transports !== undefined &&
    !(Array.isArray(r.transports) && r.transports.length <= 8 && r.transports.every((t) => typeof t === "string" && TRANSPORT.test(t)))
  ) {
    throw new WalletError("invalid_body", "response.transports must be at most 8 transport names (lowercase letters and dashes)");
  }
  checkCredentialIds(body);
  return {
    ...(body as unknown as RegistrationResponseJSON),
    clientExtensionResults: (body.clientExtensionResults ?? {}) as RegistrationResponseJSON["clientExtensionResults"],
  };
}

function asAuthentication(body: Record<string, unknown>): AuthenticationResponseJSON {
  const r = body.response as Record<string, unknown> | undefined;
  if (
    !isStr(body.id) ||
    !isStr(body.rawId) ||
    body.type !== "public-key" ||
    typeof r !== "object" ||
    r === null ||
    !isStr(r.clientDataJSON) ||
    !isStr(r.authenticatorData) ||
    !isStr(r.signature)
  ) {
    throw new WalletError(
      "invalid_body",
      "expected an AuthenticationResponseJSON (id, rawId, type, response.clientDataJSON, response.authenticatorData, response.signature)",
    );
  }
  if (r.userHandle !== undefined && r.userHandle !== null && typeof r.userHandle !== "string")
    throw new WalletError("invalid_body", "response.userHandle must be a string");
  checkCredentialIds(body);
  return {
    ...(body as unknown as AuthenticationResponseJSON),
    clientExtensionResults: (body.clientExtensionResults ?? {}) as AuthenticationResponseJSON["clientExtensionResults"],
  };
}

const failed = (error: unknown) =>
  new WalletError("webauthn_verification_failed", `passkey verification failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300));

/** POST webauthn/register/options `{ display_name? }` (walletInputs.ts REGISTER_OPTIONS_BODY) → creation options (ES256, resident key, UV required) + `al_webauthn`. */
export async function registerOptions(ctx: WalletContext, req: IncomingMessage, { displayName }: { displayName: string | null }): Promise<WalletResponse> {
  const userId = randomUUID();
  const name = displayName !== null && displayName.trim() !== "" ? displayName.trim() : `agent-ledger-${userId.slice(0, 8)}`;
  const options = await generateRegistrationOptions({
    rpName: ctx.config.rpName,
    rpID: ctx.config.rpId,
    userName: name,
    userDisplayName: name,
    userID: Buffer.from(userId.replace(/-/g, ""), "hex"),
    attestationType: "none",
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
    supportedAlgorithmIDs: [ES256],
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  const id = await storeChallenge(ctx, req, options.challenge, "register", { userId, displayName });
  return { body: options, headers: { "set-cookie": challengeCookie(ctx, id, CHALLENGE_TTL_SECONDS) } };
}

/** What both ceremonies verify against: the stored single-use challenge, our origins and RP ID, user verification. */
const expected = (ctx: WalletContext, stored: { challenge: string }) => ({
  expectedChallenge: stored.challenge,
  expectedOrigin: ctx.config.origins,
  expectedRPID: ctx.config.rpId,
  requireUserVerification: true,
});

/** POST webauthn/register/verify (RegistrationResponseJSON) → the new wallet user + `al_session`. */
export async function registerVerify(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const stored = await consumeChallenge(ctx, req, "register"); // deleted before anything else: single use even on failure
  const body = await readJsonObject(req);
  const response = asRegistration(body);
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({ response, ...expected(ctx, stored), supportedAlgorithmIDs: [ES256] });
  } catch (error) {
    if (error instanceof Error && /alg/i.test(error.message) && /unexpected|unsupported|not supported/i.test(error.message)) {
      throw new WalletError("unsupported_algorithm", "only ES256 (P-256) passkeys can control a Tempo account");
    }
    throw failed(error);
  }
  if (!verification.verified) throw failed("not verified");
  const { credential } = verification.registrationInfo;
  const publicKey = coseToUncompressed(credential.publicKey);
  if (!publicKey) throw new WalletError("unsupported_algorithm", "only ES256 (P-256) passkeys can control a Tempo account");
  const managed = passkeyAddress(publicKey);
  const userId = stored.user_id ?? undefined;
  let user: WalletUserRow;
  try {
    const { rows } = await ctx.db.query(
      `INSERT INTO wallet_users (id, credential_id, cose_public_key, public_key_hex, managed_address, display_name, passkey_sign_count, transports, last_login_at)
       VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING id, credential_id, public_key_hex, managed_address, passkey_sign_count::text, cose_public_key`,
      [
        userId ?? null,
        credential.id,
        Buffer.from(credential.publicKey),
        publicKey,
        managed,
        stored.display_name,
        credential.counter,
        credential.transports ?? [],
        ctx.now(),
      ],
    );
    user = rows[0];
  } catch (error) {
    if ((error as { code?: string }).code === "23505") throw new WalletError("credential_exists", "this passkey is already registered: sign in instead");
    throw error;
  }
  const sessionCookie = await startUserSession(ctx, user.id);
  return { status: 201, body: userView(user), headers: { "set-cookie": [sessionCookie, challengeCookie(ctx, "", 0)] } };
}

/** POST webauthn/auth/options `{}` → discoverable request options + `al_webauthn`. */
export async function authOptions(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const options = await generateAuthenticationOptions({
    rpID: ctx.config.rpId,
    userVerification: "required",
    allowCredentials: [],
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  const id = await storeChallenge(ctx, req, options.challenge, "auth");
  return { body: options, headers: { "set-cookie": challengeCookie(ctx, id, CHALLENGE_TTL_SECONDS) } };
}

/** POST webauthn/auth/verify (AuthenticationResponseJSON) → counter checked and stored, `al_session`. */
export async function authVerify(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const stored = await consumeChallenge(ctx, req, "auth");
  const body = await readJsonObject(req);
  const response = asAuthentication(body);
  const { rows } = await ctx.db.query(
    "SELECT id, credential_id, public_key_hex, managed_address, passkey_sign_count::text, cose_public_key FROM wallet_users WHERE credential_id = $1",
    [response.id],
  );
  const user = rows[0] as WalletUserRow | undefined;
  if (!user) throw new WalletError("unknown_credential", "this passkey is not registered here");
  const handle = response.response.userHandle;
  if (handle && handle !== Buffer.from(user.id.replace(/-/g, ""), "hex").toString("base64url")) {
    throw failed("the user handle does not belong to this credential");
  }
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      ...expected(ctx, stored),
      // counter 0: the library's own counter check is off; checkSignCounter below applies the rule atomically
      credential: { id: user.credential_id, publicKey: new Uint8Array(user.cose_public_key), counter: 0 },
    });
  } catch (error) {
    throw failed(error);
  }
  if (!verification.verified) throw failed("not verified");
  const received = BigInt(verification.authenticationInfo.newCounter);
  if (!checkSignCounter(BigInt(user.passkey_sign_count), received)) {
    throw new WalletError("counter_regression", "the passkey's signature counter did not increase (possible cloned authenticator)");
  }
  const updated = await ctx.db.query(
    `UPDATE wallet_users SET passkey_sign_count = $2, last_login_at = $3
      WHERE id = $1 AND (passkey_sign_count < $2 OR (passkey_sign_count = 0 AND $2 = 0)) RETURNING id`,
    [user.id, received.toString(), ctx.now()],
  );
  if (updated.rowCount === 0) throw new WalletError("counter_regression", "the passkey's signature counter did not increase (possible cloned authenticator)");
  const sessionCookie = await startUserSession(ctx, user.id);
  return { body: userView(user), headers: { "set-cookie": [sessionCookie, challengeCookie(ctx, "", 0)] } };
}

/** GET me (cookie). */
export async function me(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  return { body: userView(await requireUser(ctx, req)) };
}

/** POST logout: ends the user session (if any) and clears the cookie. */
export async function logout(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const token = readCookieSafe(req.headers.cookie, USER_SESSION_COOKIE);
  if (token) await ctx.db.query("DELETE FROM user_sessions WHERE token_hash = $1", [hashToken(token)]);
  return {
    body: { ok: true },
    headers: { "set-cookie": serializeCookie(USER_SESSION_COOKIE, "", { maxAgeSeconds: 0, path: "/", secure: ctx.config.production }) },
  };
}
