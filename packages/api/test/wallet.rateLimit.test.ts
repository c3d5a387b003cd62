import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseApiEnv } from "../src/env.ts";
import type { WalletOptions } from "../src/wallet/config.ts";
import { resolveWalletConfig } from "../src/wallet/config.ts";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, registerUser, startWalletApp, type Call, type WalletTestApp } from "./support/walletApp.ts";
import { DEFAULT_GRANT } from "./support/walletFlow.ts";

// Rate limits against real Redis (127.0.0.1:6379), real PostgreSQL and real HTTP servers on loopback: two API
// instances on one Redis share one budget; guesses past it get 429 on every endpoint that takes a device code;
// TRUST_PROXY decides which address is counted; a flood of passkey options leaves a bounded number of challenge rows;
// with Redis unreachable the code endpoints fail closed (503) and the others fall back to per-process limits.
// Every app gets its own Redis key prefix, so this file never shares a budget with another test run.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let redis: Redis;
const apps: WalletTestApp[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  redis = new Redis("redis://127.0.0.1:6379", { lazyConnect: true });
  await redis.connect();
});

afterAll(async () => {
  for (const a of apps) await a.close();
  redis?.disconnect();
  await sql?.end();
  await db?.drop();
});

const prefix = () => `test:rl:${randomBytes(6).toString("hex")}`;

/** A wallet app whose approve-init needs no chain (chain id given; the RPC is never asked); no sweeper. */
async function app(options: Partial<WalletOptions>): Promise<WalletTestApp> {
  const a = await startWalletApp(db.url, "http://127.0.0.1:9", { chainId: 31337, sweepIntervalMs: 0, ...options });
  apps.push(a);
  return a;
}

/** The three requests that take a device code, as a guesser sends them (from the approval page's origin). */
const guesses = {
  lookup: (base: string, jar: Record<string, string>, code: string, headers?: Record<string, string>) =>
    call(base, "GET", `/api/wallet/device/lookup?code=${code}`, { jar: { ...jar }, headers: { origin: base, ...headers } }),
  init: (base: string, jar: Record<string, string>, code: string, headers?: Record<string, string>) =>
    call(base, "POST", "/api/wallet/device/approve-init", { jar: { ...jar }, body: { code, ...DEFAULT_GRANT }, headers: { origin: base, ...headers } }),
  finalize: (base: string, jar: Record<string, string>, code: string, headers?: Record<string, string>) =>
    call(base, "POST", "/api/wallet/device/approve-finalize", {
      jar: { ...jar },
      body: { code, tx_hash: `0x${"ab".repeat(32)}` },
      headers: { origin: base, ...headers },
    }),
};
const kinds = ["lookup", "init", "finalize"] as const;

/** A code nobody started (8 consonants). */
function randomCode(): string {
  const letters = "BCDFGHJKLMNPQRSTVWXZ";
  const b = randomBytes(8);
  const s = Array.from(b, (x) => letters[x % letters.length]).join("");
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

function expectRateLimited(res: Call): void {
  expect(res.status).toBe(429);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(Object.keys(res.body.error).sort()).toEqual(["code", "message"]);
  expect(res.body.error.code).toBe("rate_limited");
  expect(res.body.error.message).toMatch(/too many .* requests; retry in \d+ s/);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe("device codes: one budget across API processes", () => {
  it("two API instances on one Redis share the per-address budget; guesses past it get 429 on lookup, approve-init and approve-finalize", async () => {
    const shared = prefix();
    const a = await app({ rateLimitPrefix: shared, codePerMinute: 6, codePerUserPerMinute: 1_000 });
    const b = await app({ rateLimitPrefix: shared, codePerMinute: 6, codePerUserPerMinute: 1_000 });
    const { jar } = await registerUser(a.url, new SoftAuthenticator());
    // 6 guesses, alternating instances and endpoints: each one is looked up (404 code_not_found)
    for (let i = 0; i < 6; i++) {
      const res = await guesses[kinds[i % 3]!]([a, b][i % 2]!.url, jar, randomCode());
      expect([res.status, res.body.error.code]).toEqual([404, "code_not_found"]);
    }
    // the budget is spent on both instances, on every code endpoint — even for a code that exists
    const real = await call(a.url, "POST", "/api/wallet/device/start", { body: {} });
    for (const base of [a.url, b.url]) {
      for (const kind of kinds) {
        expectRateLimited(await guesses[kind](base, jar, randomCode()));
        expectRateLimited(await guesses[kind](base, jar, real.body.code));
      }
    }
    expect(await redis.get(`${shared}:code:ip4:127.0.0.1`)).toBe("18");
    // nothing was bound: the existing pairing is untouched
    const { rows } = await sql.query("SELECT status, user_id FROM device_pairings WHERE id = $1", [real.body.pairing_id]);
    expect(rows).toEqual([{ status: "pending", user_id: null }]);
    // an instance with another prefix counts separately (the budget is the Redis key, nothing in-process)
    const c = await app({ rateLimitPrefix: prefix(), codePerMinute: 6 });
    expect((await guesses.lookup(c.url, jar, randomCode())).status).toBe(404);
  });

  it("counts per signed-in user too: changing address does not buy more guesses", async () => {
    const shared = prefix();
    const a = await app({ rateLimitPrefix: shared, trustProxy: 1, codePerMinute: 1_000, codePerUserPerMinute: 4 });
    const b = await app({ rateLimitPrefix: shared, trustProxy: 1, codePerMinute: 1_000, codePerUserPerMinute: 4 });
    const { jar } = await registerUser(a.url, new SoftAuthenticator());
    const from = (i: number) => ({ "x-forwarded-for": `198.51.100.${i}` });
    for (let i = 0; i < 4; i++) expect((await guesses[kinds[i % 3]!]([a, b][i % 2]!.url, jar, randomCode(), from(i))).status).toBe(404);
    for (const kind of kinds) expectRateLimited(await guesses[kind](b.url, jar, randomCode(), from(50)));
    // another user from one of those addresses still has their own budget
    const other = await registerUser(a.url, new SoftAuthenticator());
    expect((await guesses.lookup(a.url, other.jar, randomCode(), from(1))).status).toBe(404);
  });

  it("counts a request before the session is looked up: cookie-less floods are limited as well", async () => {
    const a = await app({ codePerMinute: 3 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await guesses.lookup(a.url, {}, randomCode())).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe("TRUST_PROXY", () => {
  it("0 (default): X-Forwarded-For is ignored, the socket address is counted", async () => {
    const rl = prefix();
    const a = await app({ rateLimitPrefix: rl, startPerMinute: 2 });
    const res = [];
    for (let i = 0; i < 3; i++)
      res.push(await call(a.url, "POST", "/api/wallet/device/start", { body: {}, headers: { "x-forwarded-for": `198.51.100.${i}` } }));
    expect(res.map((r) => r.status)).toEqual([200, 200, 429]);
    expectRateLimited(res[2]!);
    expect(await redis.get(`${rl}:start:ip4:127.0.0.1`)).toBe("3");
    expect(await redis.keys(`${rl}:start:ip4:198.51.100.*`)).toEqual([]);
  });

  it("1: the address our proxy appended is counted; what the client wrote before it is not believed", async () => {
    const rl = prefix();
    const a = await app({ rateLimitPrefix: rl, trustProxy: 1, startPerMinute: 2 });
    const start = (xff: string) => call(a.url, "POST", "/api/wallet/device/start", { body: {}, headers: { "x-forwarded-for": xff } });
    expect((await start("198.51.100.1")).status).toBe(200);
    expect((await start("1.1.1.1, 198.51.100.1")).status).toBe(200); // a forged entry in front changes nothing
    expectRateLimited(await start("2.2.2.2, 198.51.100.1"));
    expect((await start("198.51.100.2")).status).toBe(200); // another client has its own budget
    expect(await redis.get(`${rl}:start:ip4:198.51.100.1`)).toBe("3");
    expect(await redis.get(`${rl}:start:ip4:198.51.100.2`)).toBe("1");
    expect(await redis.keys(`${rl}:start:ip4:1.1.1.1`)).toEqual([]);
    // IPv6 clients are counted by /64
    expect((await start("2001:db8:1:2::1")).status).toBe(200);
    expect((await start("2001:db8:1:2::ffff")).status).toBe(200);
    expectRateLimited(await start("2001:db8:1:2:abcd::9"));
    expect((await start("2001:db8:1:3::1")).status).toBe(200);
  });
});

describe("state created without a login is bounded", () => {
  const challengeRows = async (clientKey: string) =>
    (await sql.query("SELECT count(*)::int AS n FROM webauthn_challenges WHERE client_key = $1", [clientKey])).rows[0].n as number;
  const options = (base: string, i: number, headers?: Record<string, string>) =>
    call(base, "POST", `/api/wallet/webauthn/${i % 2 ? "auth" : "register"}/options`, { body: {}, headers });

  it("a flood of passkey options keeps at most challengesPerClient rows per client; the newest challenge still works; expired rows are purged", async () => {
    const a = await app({ webauthnOptionsPerMinute: 1_000, challengesPerClient: 5, trustProxy: 1 });
    const flooder = { "x-forwarded-for": "203.0.113.66" };
    const key = "ip4:203.0.113.66";
    // concurrent trims of one client's rows must not deadlock each other (a 500 seen in the fuzz): every answer is 200
    const flood = await Promise.all(Array.from({ length: 120 }, (_, i) => options(a.url, i, flooder)));
    expect(flood.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(await challengeRows(key)).toBe(5);
    for (let i = 0; i < 20; i++) expect((await options(a.url, i, flooder)).status).toBe(200);
    expect(await challengeRows(key)).toBe(5);
    // other clients are not evicted by the flood, and each is capped the same way
    const person = new SoftAuthenticator();
    const jar: Record<string, string> = {};
    const mine = await call(a.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar, headers: { "x-forwarded-for": "203.0.113.7" } });
    for (let i = 0; i < 10; i++) await options(a.url, i, flooder);
    const verify = await call(a.url, "POST", "/api/wallet/webauthn/register/verify", { body: person.register(mine.body, a.url), jar });
    expect(verify.status).toBe(201);
    // the flooder's newest challenge still works
    const fjar: Record<string, string> = {};
    const last = await call(a.url, "POST", "/api/wallet/webauthn/register/options", { body: {}, jar: fjar, headers: flooder });
    expect(
      (await call(a.url, "POST", "/api/wallet/webauthn/register/verify", { body: new SoftAuthenticator().register(last.body, a.url), jar: fjar })).status,
    ).toBe(201);
    // expired challenges of every client are deleted by the next options call
    await sql.query("UPDATE webauthn_challenges SET expires_at = now() - interval '1 second'");
    expect((await options(a.url, 0, { "x-forwarded-for": "203.0.113.8" })).status).toBe(200);
    expect((await sql.query("SELECT client_key FROM webauthn_challenges")).rows).toEqual([{ client_key: "ip4:203.0.113.8" }]);
  });

  it("with the default limits a flood is refused after 30 options per minute and leaves at most 20 rows", async () => {
    const defaults = resolveWalletConfig();
    expect([defaults.webauthnOptionsPerMinute, defaults.challengesPerClient]).toEqual([30, 20]);
    const a = await app({ webauthnOptionsPerMinute: defaults.webauthnOptionsPerMinute, challengesPerClient: defaults.challengesPerClient, trustProxy: 1 });
    const flooder = { "x-forwarded-for": "203.0.113.99" };
    const res = await Promise.all(Array.from({ length: 45 }, (_, i) => options(a.url, i, flooder)));
    expect(res.filter((r) => r.status === 200)).toHaveLength(30);
    const refused = res.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(15);
    for (const r of refused) expectRateLimited(r);
    expect(await challengeRows("ip4:203.0.113.99")).toBe(20);
  });

  it("pairings nobody approved are deleted a day after they expired; approve-init'ed ones stay", async () => {
    const a = await app({});
    const start = async () => (await call(a.url, "POST", "/api/wallet/device/start", { body: {} })).body;
    const [old, recent, taken] = [await start(), await start(), await start()];
    const { jar } = await registerUser(a.url, new SoftAuthenticator());
    expect((await guesses.init(a.url, jar, taken.code)).status).toBe(200);
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '24 hours 1 minute' WHERE id = ANY($1::uuid[])", [
      [old.pairing_id, taken.pairing_id],
    ]);
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '23 hours 59 minutes' WHERE id = $1", [recent.pairing_id]);
    expect((await call(a.url, "GET", `/api/wallet/device/poll?device_id=${old.device_id}`)).body).toEqual({ status: "expired" });
    await start(); // the next start purges
    const { rows } = await sql.query("SELECT id FROM device_pairings WHERE id = ANY($1::uuid[]) ORDER BY created_at", [
      [old.pairing_id, recent.pairing_id, taken.pairing_id],
    ]);
    expect(rows.map((r) => r.id)).toEqual([recent.pairing_id, taken.pairing_id]);
    expect((await call(a.url, "GET", `/api/wallet/device/poll?device_id=${old.device_id}`)).status).toBe(404);
  });

  it("device/start and the relay are limited per address", async () => {
    const a = await app({ startPerMinute: 3, relayPerMinute: 2 });
    const starts = [];
    for (let i = 0; i < 4; i++) starts.push(await call(a.url, "POST", "/api/wallet/device/start", { body: {} }));
    expect(starts.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(
      (await sql.query("SELECT count(*)::int AS n FROM device_pairings WHERE id = ANY($1::uuid[])", [starts.slice(0, 3).map((r) => r.body.pairing_id)])).rows[0]
        .n,
    ).toBe(3);
    const relay = () => call(a.url, "POST", "/api/wallet/relay", { raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [] }) });
    for (let i = 0; i < 2; i++) expect((await relay()).body.error).toEqual({ code: -32601, message: expect.stringMatching(/not offered/) });
    expectRateLimited(await relay());
  });
});

describe("Redis unreachable", () => {
  it("code endpoints fail closed with 503 rate_limit_unavailable; passkey options and start fall back to a per-process limit", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r())); // nothing listens there now
    const a = await app({ redisUrl: `redis://127.0.0.1:${port}`, startPerMinute: 2, webauthnOptionsPerMinute: 3 });
    // sign-in still works: options use the in-process fallback
    const { jar } = await registerUser(a.url, new SoftAuthenticator());
    for (const kind of kinds) {
      const res = await guesses[kind](a.url, jar, randomCode());
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: { code: "rate_limit_unavailable", message: expect.any(String) } });
      expect(res.headers.get("retry-after")).toBe("5");
    }
    // the fallback still limits: 2 starts, then 429; 3 options (one used by registerUser), then 429
    const starts = [];
    for (let i = 0; i < 3; i++) starts.push((await call(a.url, "POST", "/api/wallet/device/start", { body: {} })).status);
    expect(starts).toEqual([200, 200, 429]);
    expect((await call(a.url, "POST", "/api/wallet/webauthn/auth/options", { body: {} })).status).toBe(200);
    expect((await call(a.url, "POST", "/api/wallet/webauthn/auth/options", { body: {} })).status).toBe(200);
    expectRateLimited(await call(a.url, "POST", "/api/wallet/webauthn/auth/options", { body: {} }));
    expect(a.logs.join("")).toMatch(/rate limits: Redis unreachable/);
  });
});

describe("configuration", () => {
  it("documented defaults; every limit can be set from the environment", () => {
    const env = parseApiEnv({});
    expect({
      TRUST_PROXY: env.TRUST_PROXY,
      RATE_LIMIT_PREFIX: env.RATE_LIMIT_PREFIX,
      WALLET_START_PER_MINUTE: env.WALLET_START_PER_MINUTE,
      WALLET_CODE_PER_MINUTE: env.WALLET_CODE_PER_MINUTE,
      WALLET_CODE_PER_USER_PER_MINUTE: env.WALLET_CODE_PER_USER_PER_MINUTE,
      WALLET_WEBAUTHN_OPTIONS_PER_MINUTE: env.WALLET_WEBAUTHN_OPTIONS_PER_MINUTE,
      WALLET_RELAY_PER_MINUTE: env.WALLET_RELAY_PER_MINUTE,
      WEBAUTHN_CHALLENGES_PER_CLIENT: env.WEBAUTHN_CHALLENGES_PER_CLIENT,
    }).toEqual({
      TRUST_PROXY: 0,
      RATE_LIMIT_PREFIX: "al:rl",
      WALLET_START_PER_MINUTE: 10,
      WALLET_CODE_PER_MINUTE: 30,
      WALLET_CODE_PER_USER_PER_MINUTE: 20,
      WALLET_WEBAUTHN_OPTIONS_PER_MINUTE: 30,
      WALLET_RELAY_PER_MINUTE: 120,
      WEBAUTHN_CHALLENGES_PER_CLIENT: 20,
    });
    expect(resolveWalletConfig()).toMatchObject({
      trustProxy: 0,
      rateLimitPrefix: "al:rl",
      startPerMinute: 10,
      codePerMinute: 30,
      codePerUserPerMinute: 20,
      webauthnOptionsPerMinute: 30,
      relayPerMinute: 120,
      challengesPerClient: 20,
      redisUrl: "redis://127.0.0.1:6379",
    });
    expect(parseApiEnv({ TRUST_PROXY: "2", WALLET_CODE_PER_MINUTE: "0" })).toMatchObject({ TRUST_PROXY: 2, WALLET_CODE_PER_MINUTE: 0 });
    expect(() => parseApiEnv({ TRUST_PROXY: "-1" })).toThrow(/TRUST_PROXY/);
    expect(() => parseApiEnv({ WEBAUTHN_CHALLENGES_PER_CLIENT: "0" })).toThrow(/WEBAUTHN_CHALLENGES_PER_CLIENT/);
  });
});
