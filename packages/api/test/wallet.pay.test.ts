import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { PATH_USD, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { decodeEventLog, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Abis } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletChain } from "../src/wallet/chain.ts";
import { resolveWalletConfig } from "../src/wallet/config.ts";
import { createWalletHandler } from "../src/wallet/createWalletHandler.ts";
import { markPaymentFailed } from "../src/wallet/markPaymentFailed.ts";
import { sweepReservations } from "../src/wallet/sweepReservations.ts";
import { indexAll } from "./support/seedDevnetLedger.ts";
import { silentLog } from "./support/startTestApp.ts";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, registerUser, responses, startWalletApp, type Call, type WalletTestApp } from "./support/walletApp.ts";
import { DEFAULT_GRANT, fund, funder, pairAgent, startPairing } from "./support/walletFlow.ts";

// Payments against real PostgreSQL, a real devnet and the real HTTP server: the access key signs transferWithMemo
// for the person's passkey account, the sponsor pays gas; caps are reserved atomically under concurrency; session
// states give their 403s; a failed transaction releases its reservation; the payment lands on chain and in the
// ledger (real indexer); the agent key never leaks; bad input on every endpoint is a 4xx, never a 500.

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: WalletTestApp;
let sql: pg.Client;
const agentKeys: string[] = [];

const req = (method: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<Call> => call(t.url, method, path, options);

async function paired(grant: Partial<typeof DEFAULT_GRANT> = {}, fundAmount = 50_000_000n) {
  const authn = new SoftAuthenticator();
  const r = await pairAgent(t.url, anvil.url, { authn, grant });
  agentKeys.push(r.init.agent_private_key);
  if (fundAmount > 0n) await fund(anvil.url, r.token.managed_address, fundAmount);
  return { ...r, bearer: r.token.access_token, managed: r.token.managed_address };
}

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Hex;
const balance = async (address: Hex) => (await funder(anvil.url).token.getBalance({ token: PATH_USD, account: address })).amount;
const session = async (id: string) =>
  (await sql.query("SELECT spend_used_wei::text AS used, spend_reserved_wei::text AS reserved FROM wallet_sessions WHERE id = $1", [id])).rows[0];

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  t = await startWalletApp(db.url, anvil.url, { pollIntervalSeconds: 0, startPerMinute: 10_000, lookupPerMinute: 10_000 });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await anvil?.stop();
  await db?.drop();
});

describe("POST /api/wallet/pay", () => {
  it("sends a sponsored transferWithMemo from the person's account through the access key; it lands on chain and in the ledger", async () => {
    const a = await paired();
    const to = randomAddress();
    const before = await balance(a.managed);
    const res = await req("POST", "/api/wallet/pay", {
      bearer: a.bearer,
      body: { to: to.toUpperCase().replace("0X", "0x"), amount_wei: "750000", memo: "invoice 42" },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "amount_wei",
      "explorer_url",
      "from",
      "memo",
      "spend_cap_wei",
      "spend_used_wei_after",
      "to",
      "token",
      "tx_hash",
    ]);
    expect(res.body).toMatchObject({
      from: a.managed,
      to,
      amount_wei: "750000",
      memo: "invoice 42",
      token: PATH_USD,
      spend_used_wei_after: "750000",
      spend_cap_wei: "10000000",
      explorer_url: `https://explore.test/tx/${res.body.tx_hash}`,
    });
    expect(res.headers.get("server-timing")).toMatch(/app;dur=[\d.]+, chain;dur=[\d.]+/);
    // on chain: the person's balance moved by exactly the amount (gas was sponsored), the recipient got it
    expect(before - (await balance(a.managed))).toBe(750_000n);
    expect(await balance(to)).toBe(750_000n);
    const receipt = await funder(anvil.url).getTransactionReceipt({ hash: res.body.tx_hash });
    expect(receipt.from.toLowerCase()).toBe(a.managed);
    const memoLog = receipt.logs
      .map((l) => {
        try {
          return decodeEventLog({ abi: Abis.tip20, ...l });
        } catch {
          return null;
        }
      })
      .find((e) => e?.eventName === "TransferWithMemo");
    expect(memoLog?.args).toMatchObject({ amount: 750_000n, memo: `0x${Buffer.from("invoice 42").toString("hex").padEnd(64, "0")}` });
    const {
      rows: [payment],
    } = await sql.query("SELECT status, tx_hash, amount_wei::text AS amount, to_address, memo FROM wallet_payments WHERE session_id = $1", [
      a.token.session_id,
    ]);
    expect(payment).toEqual({ status: "sent", tx_hash: res.body.tx_hash, amount: "750000", to_address: to, memo: "invoice 42" });

    // the ledger: watch the person's account, index with the real indexer, find the payment
    const registryDb = createPgPool(db.url, { max: 1 });
    try {
      await loadRegistryIntoDb(
        registryDb,
        parseRegistry({
          registry_version: 1,
          network: "devnet",
          entities: [{ id: "wallet-payer", label: "Wallet payer", category: "agent", wallets: [a.managed] }],
        }),
        "registry:wallet-test.json",
      );
    } finally {
      await registryDb.end();
    }
    await indexAll(db.url, anvil.url, receipt.blockNumber);
    const { rows: events } = await sql.query(
      "SELECT agent_id, kind, amount_wei::text AS amount, counterparty_address FROM agent_events WHERE tx_hash = $1 AND kind = 'payment_sent'",
      [res.body.tx_hash],
    );
    expect(events).toEqual([{ agent_id: "wallet-payer", kind: "payment_sent", amount: "750000", counterparty_address: to }]);
  });

  it("encodes memos: hex left-aligned, none as zero bytes; refuses memos over 32 bytes", async () => {
    const a = await paired();
    const hex = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1", memo: "0xef1ed71201" } });
    expect(hex.status).toBe(200);
    expect(hex.body.memo).toBe("0xef1ed71201");
    const none = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1" } });
    expect(none.body.memo).toBeNull();
    const receipt = await funder(anvil.url).getTransactionReceipt({ hash: hex.body.tx_hash });
    const ev = receipt.logs
      .map((l) => {
        try {
          return decodeEventLog({ abi: Abis.tip20, ...l });
        } catch {
          return null;
        }
      })
      .find((e) => e?.eventName === "TransferWithMemo");
    expect((ev?.args as { memo: string }).memo).toBe(`0xef1ed71201${"0".repeat(54)}`);
    for (const memo of ["x".repeat(33), `0x${"a".repeat(66)}`, "0x123", 42]) {
      const res = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1", memo } });
      expect([res.status, res.body.error.code]).toEqual([400, "invalid_memo"]);
    }
  });

  it("20 concurrent payments where the cap allows 10: exactly 10 succeed and spend_used_wei is their sum", async () => {
    const a = await paired({ spend_cap_wei: "1000000", per_call_cap_wei: "100000" });
    const before = await balance(a.managed);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "100000", memo: `c${i}` } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(10);
    expect(refused.every((r) => r.status === 403 && r.body.error.code === "spend_cap_exceeded")).toBe(true);
    expect(new Set(ok.map((r) => r.body.tx_hash)).size).toBe(10);
    expect(await session(a.token.session_id)).toEqual({ used: "1000000", reserved: "0" });
    expect(ok.map((r) => BigInt(r.body.amount_wei)).reduce((x, y) => x + y, 0n)).toBe(1_000_000n);
    expect(before - (await balance(a.managed))).toBe(1_000_000n);
    expect(
      (await sql.query("SELECT status, count(*)::int AS n FROM wallet_payments WHERE session_id = $1 GROUP BY status", [a.token.session_id])).rows,
    ).toEqual([{ status: "sent", n: 10 }]);
    const one = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1" } });
    expect(one.body.error.code).toBe("spend_cap_exceeded");
  });

  it("refuses above the per-call cap (nothing reserved)", async () => {
    const a = await paired({ spend_cap_wei: "1000000", per_call_cap_wei: "100000" });
    const res = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "100001" } });
    expect([res.status, res.body.error.code]).toEqual([403, "per_call_cap_exceeded"]);
    expect((await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "100000" } })).status).toBe(200);
    expect(await session(a.token.session_id)).toEqual({ used: "100000", reserved: "0" });
  });

  it("answers 500 payment_failed when the chain refuses it, and releases the reservation", async () => {
    const a = await paired({}, 0n); // the person's account holds nothing: the transfer reverts
    const res = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1000" } });
    expect([res.status, res.body.error.code]).toEqual([500, "payment_failed"]);
    expect(await session(a.token.session_id)).toEqual({ used: "0", reserved: "0" });
    const { rows } = await sql.query("SELECT status, error, tx_hash FROM wallet_payments WHERE session_id = $1", [a.token.session_id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe("failed");
    expect(rows[0].error).toMatch(/revert/);
    // funds arrive: the next payment works and the cap counts only what was sent
    await fund(anvil.url, a.managed, 5_000n);
    const ok = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1000" } });
    expect(ok.status).toBe(200);
    expect(ok.body.spend_used_wei_after).toBe("1000");
  });

  it("refuses expired, revoked and not-yet-authorized sessions with their own 403 codes", async () => {
    const expired = await paired({}, 0n);
    await sql.query("UPDATE wallet_sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.token.session_id]);
    const e = await req("POST", "/api/wallet/pay", { bearer: expired.bearer, body: { to: randomAddress(), amount_wei: "1" } });
    expect([e.status, e.body.error.code]).toEqual([403, "session_expired"]);
    expect((await req("GET", "/api/wallet/session", { bearer: expired.bearer })).body.status).toBe("expired");

    const revoked = await paired();
    // A payment first: the process now holds this bearer's signer (sessionSigner.ts); state is still checked every time.
    expect((await req("POST", "/api/wallet/pay", { bearer: revoked.bearer, body: { to: randomAddress(), amount_wei: "1" } })).status).toBe(200);
    const rv = await req("POST", "/api/wallet/session/revoke", { bearer: revoked.bearer });
    expect(rv.status).toBe(200);
    expect(rv.body).toMatchObject({ session_id: revoked.token.session_id, status: "revoked", revoked_at: expect.any(String) });
    const again = await req("POST", "/api/wallet/session/revoke", { bearer: revoked.bearer });
    expect(again.body.revoked_at).toBe(rv.body.revoked_at); // idempotent
    const r = await req("POST", "/api/wallet/pay", { bearer: revoked.bearer, body: { to: randomAddress(), amount_wei: "1" } });
    expect([r.status, r.body.error.code]).toEqual([403, "session_revoked"]);
    expect((await req("GET", "/api/wallet/session", { bearer: revoked.bearer })).body.status).toBe("revoked");

    // approve-init done, never finalized: give the session a bearer directly (the only way to hold one unauthorized)
    const authn = new SoftAuthenticator();
    const { jar } = await registerUser(t.url, authn);
    const s = await startPairing(t.url);
    const init = await req("POST", "/api/wallet/device/approve-init", { jar, body: { code: s.code, ...DEFAULT_GRANT } });
    agentKeys.push(init.body.agent_private_key);
    const bearer = "alt_notauthorizedyet_0123456789";
    await sql.query("UPDATE wallet_sessions SET bearer_token_hash = encode(sha256($2::bytea), 'hex') WHERE id = $1", [init.body.session_id, bearer]);
    const n = await req("POST", "/api/wallet/pay", { bearer, body: { to: randomAddress(), amount_wei: "1" } });
    expect([n.status, n.body.error.code]).toEqual([403, "session_not_authorized"]);
    expect((await req("GET", "/api/wallet/session", { bearer })).body.status).toBe("not_authorized");
  });

  it("401 without or with an unknown bearer; 400 for a token other than the session's", async () => {
    const a = await paired({}, 0n);
    const none = await req("POST", "/api/wallet/pay", { body: { to: randomAddress(), amount_wei: "1" } });
    expect([none.status, none.body.error.code]).toEqual([401, "unauthorized"]);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect((await req("POST", "/api/wallet/pay", { bearer: "alt_doesnotexist_000000000000", body: {} })).status).toBe(401);
    expect((await req("POST", "/api/wallet/pay", { headers: { authorization: "Basic abc" }, body: {} })).status).toBe(401);
    const other = await req("POST", "/api/wallet/pay", {
      bearer: a.bearer,
      body: { to: randomAddress(), amount_wei: "1", token: "0x20c0000000000000000000000000000000000001" },
    });
    expect([other.status, other.body.error.code]).toEqual([400, "invalid_token"]);
  });
});

describe("the reservation sweeper (payments an interrupted request left reserved)", () => {
  const chainFor = (rpcUrl: string) => createWalletChain(resolveWalletConfig({ rpcUrl }));
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
  });

  async function reserved(sessionId: string, amount: bigint, row: { ageMinutes: number; txHash?: string; validBeforeMinutesAgo?: number }) {
    const { rows } = await sql.query(
      `INSERT INTO wallet_payments (session_id, to_address, amount_wei, token_address, status, created_at, tx_hash, valid_before)
       VALUES ($1, $2, $3, $4, 'reserved', now() - make_interval(mins => $5), $6, now() - make_interval(mins => $7)) RETURNING id`,
      [sessionId, randomAddress(), amount.toString(), PATH_USD, row.ageMinutes, row.txHash ?? null, row.validBeforeMinutesAgo ?? null],
    );
    await sql.query("UPDATE wallet_sessions SET spend_reserved_wei = spend_reserved_wei + $2 WHERE id = $1", [sessionId, amount.toString()]);
    return rows[0].id as string;
  }
  const status = async (id: string) => (await sql.query("SELECT status, tx_hash, error FROM wallet_payments WHERE id = $1", [id])).rows[0];

  it("settles from the chain what a crash left: mined → sent, never broadcast or expired → released; leaves in-flight payments alone", async () => {
    const a = await paired();
    const sid = a.token.session_id;
    // A real payment; the hash and validBefore were stored before the broadcast.
    const res = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "300000" } });
    expect(res.status).toBe(200);
    const {
      rows: [sent],
    } = await sql.query("SELECT id, tx_hash, valid_before FROM wallet_payments WHERE session_id = $1", [sid]);
    expect(sent.tx_hash).toBe(res.body.tx_hash);
    expect(sent.valid_before).toBeInstanceOf(Date);
    // As if the process died after the broadcast, before recording the outcome: back to reserved, its validBefore past.
    await sql.query("UPDATE wallet_payments SET status = 'reserved', valid_before = now() - interval '2 minutes' WHERE id = $1", [sent.id]);
    await sql.query("UPDATE wallet_sessions SET spend_used_wei = spend_used_wei - 300000, spend_reserved_wei = spend_reserved_wei + 300000 WHERE id = $1", [
      sid,
    ]);

    const neverSigned = await reserved(sid, 1_000n, { ageMinutes: 11 }); // no hash, old: never broadcast
    const expired = await reserved(sid, 2_000n, { ageMinutes: 5, txHash: `0x${"5e".repeat(32)}`, validBeforeMinutesAgo: 3 }); // never mined
    const young = await reserved(sid, 4_000n, { ageMinutes: 1 }); // a live request may still be signing it
    const inFlight = await reserved(sid, 8_000n, { ageMinutes: 0, txHash: `0x${"6f".repeat(32)}`, validBeforeMinutesAgo: -1 }); // valid for a minute more
    expect(await session(sid)).toEqual({ used: "0", reserved: "315000" });

    // The node cannot be reached: nothing with a hash is decided, what was never broadcast is released.
    const offline = await sweepReservations({ db: pool, chain: chainFor("http://127.0.0.1:9"), log: silentLog }, new Date());
    expect(offline).toEqual({ sent: 0, failed: 1, left: 2 });
    expect((await status(neverSigned)).status).toBe("failed");
    expect((await status(sent.id)).status).toBe("reserved");

    const swept = await sweepReservations({ db: pool, chain: chainFor(anvil.url), log: silentLog }, new Date());
    expect(swept).toEqual({ sent: 1, failed: 1, left: 0 });
    expect(await status(sent.id)).toMatchObject({ status: "sent", tx_hash: res.body.tx_hash });
    expect(await status(expired)).toMatchObject({ status: "failed", tx_hash: `0x${"5e".repeat(32)}` });
    expect((await status(expired)).error).toMatch(/not mined before it expired/);
    expect((await status(young)).status).toBe("reserved");
    expect((await status(inFlight)).status).toBe("reserved");
    // The mined payment counts as spent again; only the two live reservations remain reserved.
    expect(await session(sid)).toEqual({ used: "300000", reserved: "12000" });

    // Again: nothing left to settle (each row moves once).
    expect(await sweepReservations({ db: pool, chain: chainFor(anvil.url), log: silentLog }, new Date())).toEqual({ sent: 0, failed: 0, left: 0 });
    // Later, the young one is old enough and the in-flight one expired unmined: both released.
    expect(await sweepReservations({ db: pool, chain: chainFor(anvil.url), log: silentLog }, new Date(Date.now() + 20 * 60_000))).toEqual({
      sent: 0,
      failed: 2,
      left: 0,
    });
    expect(await session(sid)).toEqual({ used: "300000", reserved: "0" });
  });

  it("a payment is reserved with its transaction hash and validBefore in one commit: no reserved row is ever without them", async () => {
    // The sweeper releases a hash-less reservation as "never broadcast", and a row with a hash only after its
    // validBefore, when the transaction can no longer be included: so a payment must never be reserved before it is
    // signed. The trigger refuses any reserved row inserted without its hash (a separate pre-broadcast write would).
    const a = await paired();
    const sid = a.token.session_id;
    const to = randomAddress();
    await sql.query(`CREATE FUNCTION reserved_needs_hash() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.session_id = '${sid}' AND NEW.status = 'reserved' AND (NEW.tx_hash IS NULL OR NEW.valid_before IS NULL) THEN
        RAISE EXCEPTION 'reserved without its transaction hash'; END IF; RETURN NEW; END $$`);
    await sql.query("CREATE TRIGGER reserved_needs_hash BEFORE INSERT ON wallet_payments FOR EACH ROW EXECUTE FUNCTION reserved_needs_hash()");
    try {
      const res = await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to, amount_wei: "5000" } });
      expect(res.status).toBe(200);
    } finally {
      await sql.query("DROP TRIGGER reserved_needs_hash ON wallet_payments");
      await sql.query("DROP FUNCTION reserved_needs_hash()");
    }
    expect(await balance(to)).toBe(5000n);
    expect(await session(sid)).toEqual({ used: "5000", reserved: "0" });
  });

  it("runs on its own in the API: the wallet handler sweeps every sweepIntervalMs once started, and stops", async () => {
    const a = await paired({}, 0n);
    const sid = a.token.session_id;
    const stale = await reserved(sid, 7_000n, { ageMinutes: 30 }); // never signed
    const wallet = createWalletHandler({ db: pool, log: silentLog, options: { rpcUrl: anvil.url, sweepIntervalMs: 20 } });
    wallet.startSweeper();
    try {
      for (let i = 0; i < 100 && (await status(stale)).status === "reserved"; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await wallet.stopSweeper();
    }
    expect((await status(stale)).status).toBe("failed");
    expect(await session(sid)).toEqual({ used: "0", reserved: "0" });
    // Stopped: a new stale reservation stays until the next start.
    const later = await reserved(sid, 1_000n, { ageMinutes: 30 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await status(later)).status).toBe("reserved");
    // Without a chain there is nothing to settle against: starting is a no-op.
    const chainless = createWalletHandler({ db: pool, log: silentLog, options: { sweepIntervalMs: 20 } });
    chainless.startSweeper();
    await new Promise((r) => setTimeout(r, 100));
    await chainless.stopSweeper();
    expect((await status(later)).status).toBe("reserved");
    await markPaymentFailed(pool, later, "test cleanup", null);
  });
});

describe("GET /api/wallet/session", () => {
  it("reports caps, usage, expiry and status", async () => {
    const a = await paired({ spend_cap_wei: "5000000", per_call_cap_wei: "2000000", session_ttl_seconds: 600 });
    await req("POST", "/api/wallet/pay", { bearer: a.bearer, body: { to: randomAddress(), amount_wei: "1500000" } });
    const res = await req("GET", "/api/wallet/session", { bearer: a.bearer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      session_id: a.token.session_id,
      status: "active",
      agent_label: "test agent",
      agent_key_address: a.token.agent_key_address,
      managed_address: a.managed,
      token: PATH_USD,
      spend_cap_wei: "5000000",
      per_call_cap_wei: "2000000",
      spend_used_wei: "1500000",
      spend_reserved_wei: "0",
      spend_remaining_wei: "3500000",
      expires_at: new Date(a.init.expiry_unix * 1000).toISOString(),
      revoked_at: null,
      on_chain_authorized_at: expect.any(String),
      authorize_tx_hash: a.receipt.transactionHash,
      created_at: expect.any(String),
    });
  });
});

describe("bad input on every endpoint is a 4xx JSON error, never a 500", () => {
  let jar: Record<string, string>;
  let bearer: string;
  beforeAll(async () => {
    ({ jar } = await registerUser(t.url, new SoftAuthenticator()));
    bearer = (await paired({}, 0n)).bearer;
  });

  const bodies: [string, { raw?: string; body?: unknown; headers?: Record<string, string> }][] = [
    ["not JSON", { raw: "{not json" }],
    ["an array", { raw: "[1,2]" }],
    ["a string", { raw: '"x"' }],
    ["null", { raw: "null" }],
    ["wrong content type", { raw: '{"a":1}', headers: { "content-type": "text/plain" } }],
    ["too large", { raw: JSON.stringify({ x: "y".repeat(70_000) }) }],
    [
      "wrong types",
      {
        body: {
          to: 12,
          amount_wei: 1,
          memo: {},
          token: [],
          code: 5,
          tx_hash: 7,
          spend_cap_wei: null,
          per_call_cap_wei: true,
          session_ttl_seconds: "x",
          agent_label: 9,
          display_name: 3,
          id: 1,
          rawId: 2,
          type: "x",
          response: "y",
        },
      },
    ],
    [
      "huge strings",
      {
        body: {
          to: "0x".padEnd(5000, "f"),
          amount_wei: "9".repeat(500),
          memo: "m".repeat(5000),
          code: "B".repeat(5000),
          tx_hash: "0x".padEnd(5000, "a"),
          agent_label: "l".repeat(5000),
          display_name: "d".repeat(5000),
          spend_cap_wei: "1".repeat(400),
          per_call_cap_wei: "1",
          session_ttl_seconds: 1e308,
        },
      },
    ],
    [
      "negative and fractional amounts",
      {
        body: {
          to: "0x00000000000000000000000000000000000000b2",
          amount_wei: "-5",
          spend_cap_wei: "1.5",
          per_call_cap_wei: "1e6",
          session_ttl_seconds: -1,
          code: "BCDF-GHJK",
          tx_hash: `0x${"g".repeat(64)}`,
        },
      },
    ],
    ["empty object", { body: {} }],
  ];
  const endpoints: [string, string, "cookie" | "bearer" | "none"][] = [
    ["POST", "/api/wallet/webauthn/register/options", "none"],
    ["POST", "/api/wallet/webauthn/register/verify", "none"],
    ["POST", "/api/wallet/webauthn/auth/options", "none"],
    ["POST", "/api/wallet/webauthn/auth/verify", "none"],
    ["POST", "/api/wallet/device/start", "none"],
    ["POST", "/api/wallet/device/approve-init", "cookie"],
    ["POST", "/api/wallet/device/approve-finalize", "cookie"],
    ["POST", "/api/wallet/pay", "bearer"],
    ["POST", "/api/wallet/session/revoke", "none"],
    ["POST", "/api/wallet/logout", "none"],
  ];

  it.each(endpoints)("%s %s", async (method, path, auth) => {
    for (const [name, b] of bodies) {
      const res = await req(method, path, { ...b, ...(auth === "cookie" ? { jar: { ...jar } } : {}), ...(auth === "bearer" ? { bearer } : {}) });
      const label = `${name} → ${res.status} ${res.text.slice(0, 120)}`;
      // empty object / options calls may legitimately succeed; nothing may be a 5xx
      expect(res.status < 500, label).toBe(true);
      if (res.status >= 400) {
        expect(res.headers.get("content-type"), label).toMatch(/application\/json/);
        expect(res.body.error.code, label).toMatch(/^[a-z_]+$/);
        expect(typeof res.body.error.message, label).toBe("string");
      }
    }
  });

  it("query endpoints: poll, lookup, me, session with bad or missing parameters", async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ["GET", "/api/wallet/device/poll", {}],
      ["GET", "/api/wallet/device/poll?device_id=", {}],
      ["GET", "/api/wallet/device/poll?device_id=%00%ff", {}],
      ["GET", `/api/wallet/device/poll?device_id=${"x".repeat(5000)}`, {}],
      ["GET", "/api/wallet/device/lookup", { jar: { ...jar } }],
      ["GET", "/api/wallet/device/lookup?code=%E2%82%AC%E2%82%AC", { jar: { ...jar } }],
      ["GET", `/api/wallet/device/lookup?code=${"B".repeat(5000)}`, { jar: { ...jar } }],
      ["GET", "/api/wallet/device/lookup?code=BCDF-GHJK", {}],
      ["GET", "/api/wallet/me", { jar: { al_session: "%%%" } }],
      ["GET", "/api/wallet/session", { headers: { authorization: "Bearer " } }],
      ["GET", "/api/wallet/session", { headers: { authorization: `Bearer ${"a".repeat(600)}` } }],
      ["POST", "/api/wallet/webauthn/auth/verify", { jar: { al_webauthn: "not-a-uuid" }, body: {} }],
      ["POST", "/api/wallet/webauthn/auth/verify", { jar: { al_webauthn: "00000000-0000-0000-0000-000000000000" }, body: {} }],
      ["DELETE", "/api/wallet/pay", {}],
      ["GET", "/api/wallet/pay", {}],
      ["POST", "/api/wallet/me", {}],
      ["GET", "/api/wallet/nope", {}],
      ["PUT", "/api/wallet/device/start", {}],
    ];
    for (const [method, path, options] of cases) {
      const res = await req(method, path, options as never);
      const label = `${method} ${path.slice(0, 80)} → ${res.status} ${res.text.slice(0, 120)}`;
      expect(res.status >= 400 && res.status < 500, label).toBe(true);
      expect(res.body.error.code, label).toMatch(/^[a-z_]+$/);
    }
  });

  it("a registration verify with a garbled attestation is a 4xx and still consumes the challenge", async () => {
    const j: Record<string, string> = {};
    await req("POST", "/api/wallet/webauthn/register/options", { body: {}, jar: j });
    const id = j.al_webauthn!;
    const res = await req("POST", "/api/wallet/webauthn/register/verify", {
      jar: j,
      body: { id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "eyJ9", attestationObject: "oA" } },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect((await sql.query("SELECT 1 FROM webauthn_challenges WHERE id = $1", [id])).rowCount).toBe(0);
  });
});

describe("the agent key", () => {
  // runs last: every response of this file (payments, sessions, pairing, bad input) has been seen
  it("appears in no log line and in no response but approve-init's", () => {
    expect(agentKeys.length).toBeGreaterThanOrEqual(8);
    const logs = t.logs.join("\n").toLowerCase();
    expect(logs.length).toBeGreaterThan(1000);
    for (const key of agentKeys) {
      const bare = key.slice(2).toLowerCase();
      expect(logs).not.toContain(bare);
      const leaking = responses.filter((r) => r.text.toLowerCase().includes(bare) && !r.path.endsWith("/device/approve-init"));
      expect(leaking.map((r) => r.path)).toEqual([]);
    }
    // every key was in its approve-init response (the check above is not vacuous), and many other responses were seen
    for (const key of agentKeys) expect(responses.some((r) => r.path.endsWith("/device/approve-init") && r.text.includes(key))).toBe(true);
    expect(new Set(responses.map((r) => r.path.split("?")[0])).size).toBeGreaterThanOrEqual(12);
  });
});
