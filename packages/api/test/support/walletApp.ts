import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { createPgPool } from "@agent-ledger/db";
import { DEV_PRIVATE_KEYS } from "@agent-ledger/devnet";
import type pg from "pg";
import { pino } from "pino";
import { buildApp, type App, type AppDeps } from "../../src/buildApp.ts";
import type { SoftAuthenticator } from "./softAuthenticator.ts";
import { freePort } from "./freePort.ts";

export const SPONSOR_KEY = DEV_PRIVATE_KEYS[3];

export interface WalletTestApp {
  app: App;
  /** http://localhost:<port> — the WebAuthn origin and PUBLIC_BASE_URL. */
  url: string;
  pool: pg.Pool;
  masterKey: Buffer;
  /** Every log line the app wrote (pino JSON, level debug and up). */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Rate limits of a test app unless the test sets its own: its own Redis key prefix (test files run in parallel, all
 * from 127.0.0.1, and must not share budgets) and limits no functional test reaches. The rate-limit tests
 * (wallet.rateLimit.test.ts) set the numbers they test.
 */
export const TEST_RATE_LIMITS = () => ({
  rateLimitPrefix: `test:${randomBytes(6).toString("hex")}`,
  startPerMinute: 100_000,
  codePerMinute: 100_000,
  codePerUserPerMinute: 100_000,
  webauthnOptionsPerMinute: 100_000,
  relayPerMinute: 100_000,
  challengesPerClient: 100_000,
});

/** The real app on localhost:<free port> with the wallet configured (devnet RPC, sponsor = dev account 3), logs captured. */
export async function startWalletApp(
  databaseUrl: string,
  rpcUrl: string | undefined,
  wallet: NonNullable<AppDeps["wallet"]> = {},
  masterKey = randomBytes(32),
): Promise<WalletTestApp> {
  const pool = createPgPool(databaseUrl, { max: 12, applicationName: "agent-ledger-wallet-test" });
  pool.on("error", () => {});
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const log = pino({ level: "debug" }, sink);
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const app = buildApp({
    pool,
    log,
    webhooks: { masterKey, production: false },
    wallet: {
      masterKey,
      production: false,
      publicBaseUrl: url,
      rpcUrl,
      sponsorPrivateKey: SPONSOR_KEY,
      explorerBaseUrl: "https://explore.test",
      receiptTimeoutMs: 3_000,
      ...TEST_RATE_LIMITS(),
      ...wallet,
    },
  });
  await app.start(port, "127.0.0.1");
  return {
    app,
    url,
    pool,
    masterKey,
    logs,
    close: async () => {
      await app.stop();
      await pool.end();
    },
  };
}

export interface Call {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  cookies: Record<string, string>;
  setCookies: string[];
  text: string;
}

/** Every response `call` saw in this test file (path and body text), for leak checks. */
export const responses: { method: string; path: string; text: string }[] = [];

/**
 * A fetch with a small cookie jar: `jar` sends and collects cookies. Like a browser on our own page, a request that
 * may change state carries `Origin: <base>` (the session cookie is refused without it, auth/checkRequestOrigin.ts);
 * `headers.origin` overrides it, `null` leaves it out.
 */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; jar?: Record<string, string>; bearer?: string; headers?: Record<string, string | null> } = {},
): Promise<Call> {
  const headers: Record<string, string> = {};
  if (!["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase())) headers.origin = new URL(base).origin;
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  if (options.body !== undefined || options.raw !== undefined) headers["content-type"] ??= "application/json";
  if (options.jar && Object.keys(options.jar).length)
    headers.cookie = Object.entries(options.jar)
      .map(([k, v]) => `${k}=${v}`)
      .join("; ");
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const res = await fetch(base + path, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
  const text = await res.text();
  responses.push({ method, path, text });
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // keep text
  }
  const setCookies = res.headers.getSetCookie();
  const cookies: Record<string, string> = {};
  for (const c of setCookies) {
    const [pair] = c.split(";");
    const at = pair!.indexOf("=");
    cookies[pair!.slice(0, at)] = decodeURIComponent(pair!.slice(at + 1));
  }
  if (options.jar) {
    for (const [k, v] of Object.entries(cookies)) {
      if (v === "") delete options.jar[k];
      else options.jar[k] = v;
    }
  }
  return { status: res.status, headers: res.headers, body, cookies, setCookies, text };
}

/** Registers a passkey through the API; returns the signed-in jar and the user. */
export async function registerUser(base: string, authn: SoftAuthenticator, displayName = "test user") {
  const jar: Record<string, string> = {};
  const options = await call(base, "POST", "/api/wallet/webauthn/register/options", { body: { display_name: displayName }, jar });
  if (options.status !== 200) throw new Error(`register/options ${options.status} ${options.text}`);
  const verify = await call(base, "POST", "/api/wallet/webauthn/register/verify", { body: authn.register(options.body, base), jar });
  if (verify.status !== 201) throw new Error(`register/verify ${verify.status} ${verify.text}`);
  return { jar, user: verify.body as { user_id: string; managed_address: `0x${string}`; credential_id: string; public_key_uncompressed: string } };
}
