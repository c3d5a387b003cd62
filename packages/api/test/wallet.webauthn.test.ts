import { createTestDatabase } from "@agent-ledger/db/testing";
import { hashToken } from "@agent-ledger/core";
import pg from "pg";
import { Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, registerUser, startWalletApp, type WalletTestApp } from "./support/walletApp.ts";

// Passkeys against real PostgreSQL and the real HTTP server, with a software authenticator (ES256, "none"
// attestation, UV): registration and discoverable sign-in work; a replayed challenge, a wrong origin, a wrong RP ID,
// a missing UV flag, a non-ES256 key and a counter regression are refused; challenges are single use even on failure.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: WalletTestApp;
let sql: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await startWalletApp(db.url, undefined);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await db?.drop();
});

const challengeCount = async () => (await sql.query("SELECT count(*)::int AS n FROM webauthn_challenges")).rows[0].n as number;

async function signIn(authn: SoftAuthenticator, over: Parameters<SoftAuthenticator["assert"]>[2] = {}, origin = t.url) {
  const jar: Record<string, string> = {};
  const options = await call(t.url, "POST", "/api/wallet/webauthn/auth/options", { body: {}, jar });
  expect(options.status).toBe(200);
  return { jar, options, verify: await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", { body: authn.assert(options.body, origin, over), jar }) };
}

describe("passkey registration", () => {
  it("offers ES256 only, resident key and user verification required, and sets a short-lived HttpOnly challenge cookie", async () => {
    const res = await call(t.url, "POST", "/api/wallet/webauthn/register/options", { body: { display_name: "Ada" } });
    expect(res.status).toBe(200);
    expect(res.body.pubKeyCredParams).toEqual([{ alg: -7, type: "public-key" }]);
    expect(res.body.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    expect(res.body.rp).toEqual({ name: "Agent Ledger", id: "localhost" });
    expect(res.body.user.name).toBe("Ada");
    const cookie = res.setCookies.find((c) => c.startsWith("al_webauthn="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=300/);
    expect(cookie).not.toMatch(/Secure/); // not production
    // the cookie is an opaque row id; the challenge lives server-side
    const { rows } = await sql.query("SELECT challenge, purpose FROM webauthn_challenges WHERE id = $1", [res.cookies.al_webauthn]);
    expect(rows).toEqual([{ challenge: res.body.challenge, purpose: "register" }]);
  });

  it("creates the wallet user (COSE key, 0x04‖x‖y, Tempo address) and a 30-minute session cookie", async () => {
    const authn = new SoftAuthenticator();
    const { jar, user } = await registerUser(t.url, authn);
    const viemAccount = Account.fromHeadlessWebAuthn(authn.p256PrivateKeyHex, { rpId: "localhost", origin: t.url });
    expect(user).toEqual({
      user_id: expect.any(String),
      managed_address: viemAccount.address.toLowerCase(),
      credential_id: authn.credentialIdB64u,
      public_key_uncompressed: authn.publicKeyUncompressed,
    });
    const {
      rows: [row],
    } = await sql.query("SELECT cose_public_key, public_key_hex, managed_address, passkey_sign_count::int AS n, display_name FROM wallet_users WHERE id = $1", [
      user.user_id,
    ]);
    expect(row.public_key_hex).toBe(authn.publicKeyUncompressed);
    expect(row.cose_public_key.length).toBeGreaterThan(64);
    expect(row).toMatchObject({ n: 0, display_name: "test user" });
    // the session cookie: opaque, only its hash stored, 30 minutes
    const { rows: sessions } = await sql.query("SELECT token_hash, expires_at, created_at FROM user_sessions WHERE user_id = $1", [user.user_id]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].token_hash).toBe(hashToken(jar.al_session!));
    expect(new Date(sessions[0].expires_at).getTime() - Date.now()).toBeGreaterThan(29 * 60_000);
    const me = await call(t.url, "GET", "/api/wallet/me", { jar });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(user);
    expect(jar.al_webauthn).toBeUndefined(); // cleared after use
  });

  it("sets the session cookie HttpOnly, SameSite=Lax, Max-Age=1800", async () => {
    const authn = new SoftAuthenticator();
    const jar: Record<string, string> = {};
    const options = await call(t.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar });
    const res = await call(t.url, "POST", "/api/wallet/webauthn/register/verify", { body: authn.register(options.body, t.url), jar });
    const cookie = res.setCookies.find((c) => c.startsWith("al_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=1800/);
    expect(cookie).toMatch(/Path=\//);
  });

  it("refuses a replayed challenge (single use), even after a successful registration", async () => {
    const authn = new SoftAuthenticator();
    const jar: Record<string, string> = {};
    const options = await call(t.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar });
    const response = authn.register(options.body, t.url);
    const cookie = jar.al_webauthn!;
    expect((await call(t.url, "POST", "/api/wallet/webauthn/register/verify", { body: response, jar })).status).toBe(201);
    const replay = await call(t.url, "POST", "/api/wallet/webauthn/register/verify", { body: response, jar: { al_webauthn: cookie } });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe("challenge_not_found");
  });

  it("refuses a wrong origin, and deletes the challenge after the failed attempt", async () => {
    const authn = new SoftAuthenticator();
    const jar: Record<string, string> = {};
    const options = await call(t.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar });
    const id = jar.al_webauthn!;
    const res = await call(t.url, "POST", "/api/wallet/webauthn/register/verify", { body: authn.register(options.body, "https://evil.example"), jar });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: "webauthn_verification_failed", message: expect.stringMatching(/origin/i) });
    expect((await sql.query("SELECT 1 FROM webauthn_challenges WHERE id = $1", [id])).rowCount).toBe(0);
    // the right response with the same (consumed) challenge is now refused too
    const retry = await call(t.url, "POST", "/api/wallet/webauthn/register/verify", { body: authn.register(options.body, t.url), jar: { al_webauthn: id } });
    expect(retry.body.error.code).toBe("challenge_not_found");
    expect((await sql.query("SELECT 1 FROM wallet_users WHERE credential_id = $1", [authn.credentialIdB64u])).rowCount).toBe(0);
  });

  it("refuses a response without user verification, a wrong ceremony type, a non-ES256 key, and a second registration of the same passkey", async () => {
    const authn = new SoftAuthenticator();
    const attempt = async (build: (o: any) => unknown) => {
      const jar: Record<string, string> = {};
      const options = await call(t.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar });
      return call(t.url, "POST", "/api/wallet/webauthn/register/verify", { body: build(options.body), jar });
    };
    const noUv = await attempt((o) => authn.register(o, t.url, { uv: false }));
    expect(noUv.status).toBe(401);
    expect(noUv.body.error.message).toMatch(/verif/i);
    expect((await attempt((o) => authn.register(o, t.url, { type: "webauthn.get" }))).status).toBe(401);
    const ed = new SoftAuthenticator({ alg: -8 });
    const edRes = await attempt((o) => ed.register(o, t.url));
    expect(edRes.status).toBe(400);
    expect(edRes.body.error.code).toBe("unsupported_algorithm");
    expect((await attempt((o) => authn.register(o, t.url))).status).toBe(201);
    const again = await attempt((o) => authn.register(o, t.url));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("credential_exists");
  });
});

describe("passkey sign-in", () => {
  it("signs in with a discoverable credential, stores the counter, and sets the session cookie", async () => {
    const authn = new SoftAuthenticator();
    const { user } = await registerUser(t.url, authn);
    const { options, verify, jar } = await signIn(authn);
    expect(options.body.allowCredentials).toEqual([]);
    expect(options.body.userVerification).toBe("required");
    expect(options.body.rpId).toBe("localhost");
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual(user);
    expect(jar.al_session).toBeDefined();
    expect((await sql.query("SELECT passkey_sign_count::int AS n FROM wallet_users WHERE id = $1", [user.user_id])).rows[0].n).toBe(1);
    const again = await signIn(authn);
    expect(again.verify.status).toBe(200);
    expect((await sql.query("SELECT passkey_sign_count::int AS n FROM wallet_users WHERE id = $1", [user.user_id])).rows[0].n).toBe(2);
  });

  it("refuses a counter regression (cloned authenticator) but accepts an authenticator that always reports 0", async () => {
    const authn = new SoftAuthenticator();
    await registerUser(t.url, authn);
    const clone = authn.clone();
    expect((await signIn(authn)).verify.status).toBe(200); // counter 1
    expect((await signIn(authn)).verify.status).toBe(200); // counter 2
    const cloned = await signIn(clone); // the clone still says 1
    expect(cloned.verify.status).toBe(401);
    expect(cloned.verify.body.error.code).toBe("counter_regression");
    expect(cloned.jar.al_session).toBeUndefined();
    const same = await signIn(authn, { count: 2 });
    expect(same.verify.body.error.code).toBe("counter_regression");
    const zero = await signIn(authn, { count: 0 });
    expect(zero.verify.body.error.code).toBe("counter_regression");

    const synced = new SoftAuthenticator({ counter: "zero" });
    await registerUser(t.url, synced);
    expect((await signIn(synced)).verify.status).toBe(200);
    expect((await signIn(synced)).verify.status).toBe(200);
  });

  it("refuses a replayed assertion challenge, a wrong origin, a wrong RP ID, missing UV, an unknown credential; each attempt consumes the challenge", async () => {
    const authn = new SoftAuthenticator();
    await registerUser(t.url, authn);
    // replay: same cookie + same assertion after success
    const jar: Record<string, string> = {};
    const options = await call(t.url, "POST", "/api/wallet/webauthn/auth/options", { body: {}, jar });
    const cookie = jar.al_webauthn!;
    const assertion = authn.assert(options.body, t.url);
    expect((await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", { body: assertion, jar })).status).toBe(200);
    const replay = await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", { body: assertion, jar: { al_webauthn: cookie } });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe("challenge_not_found");

    const before = await challengeCount();
    const wrongOrigin = await signIn(authn, {}, "http://localhost:1");
    expect(wrongOrigin.verify.status).toBe(401);
    expect(wrongOrigin.verify.body.error.message).toMatch(/origin/i);
    const wrongRp = await signIn(authn, { rpId: "evil.example" });
    expect(wrongRp.verify.status).toBe(401);
    const noUv = await signIn(authn, { uv: false });
    expect(noUv.verify.status).toBe(401);
    const stranger = await signIn(new SoftAuthenticator());
    expect(stranger.verify.status).toBe(401);
    expect(stranger.verify.body.error.code).toBe("unknown_credential");
    expect(await challengeCount()).toBe(before); // every failed attempt deleted its challenge
    for (const r of [wrongOrigin, wrongRp, noUv, stranger]) {
      const retry = await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", {
        body: authn.assert({ challenge: r.options.body.challenge }, t.url),
        jar: { al_webauthn: r.jar.al_webauthn ?? "" },
      });
      expect(retry.status).toBe(400);
    }
  });

  it("needs the challenge cookie of the matching ceremony", async () => {
    const authn = new SoftAuthenticator();
    await registerUser(t.url, authn);
    const jar: Record<string, string> = {};
    const options = await call(t.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar }); // a registration challenge
    const res = await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", { body: authn.assert(options.body, t.url), jar });
    expect(res.body.error.code).toBe("challenge_not_found");
    expect((await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", { body: authn.assert(options.body, t.url) })).body.error.code).toBe(
      "challenge_not_found",
    );
  });

  it("expires challenges after 5 minutes", async () => {
    const authn = new SoftAuthenticator();
    await registerUser(t.url, authn);
    const jar: Record<string, string> = {};
    const options = await call(t.url, "POST", "/api/wallet/webauthn/auth/options", { body: {}, jar });
    await sql.query("UPDATE webauthn_challenges SET expires_at = now() - interval '1 second' WHERE id = $1", [jar.al_webauthn]);
    const res = await call(t.url, "POST", "/api/wallet/webauthn/auth/verify", { body: authn.assert(options.body, t.url), jar });
    expect(res.body.error).toMatchObject({ code: "challenge_not_found", message: expect.stringMatching(/expired/) });
  });
});

describe("user session", () => {
  it("me needs a live cookie; logout ends the session", async () => {
    expect((await call(t.url, "GET", "/api/wallet/me")).status).toBe(401);
    expect((await call(t.url, "GET", "/api/wallet/me", { jar: { al_session: "nope" } })).status).toBe(401);
    const { jar, user } = await registerUser(t.url, new SoftAuthenticator());
    const cookie = jar.al_session!;
    await sql.query("UPDATE user_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [user.user_id]);
    expect((await call(t.url, "GET", "/api/wallet/me", { jar: { al_session: cookie } })).body.error.code).toBe("unauthorized");
    await sql.query("UPDATE user_sessions SET expires_at = now() + interval '1 minute' WHERE user_id = $1", [user.user_id]);
    expect((await call(t.url, "GET", "/api/wallet/me", { jar: { al_session: cookie } })).status).toBe(200);
    const out = await call(t.url, "POST", "/api/wallet/logout", { jar });
    expect(out.status).toBe(200);
    expect(out.setCookies.find((c) => c.startsWith("al_session="))).toMatch(/Max-Age=0/);
    expect((await call(t.url, "GET", "/api/wallet/me", { jar: { al_session: cookie } })).status).toBe(401);
  });
});
