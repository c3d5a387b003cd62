import { createHash } from "node:crypto";
import { openSecret } from "@agent-ledger/core";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { createDevnetClient, DEV_PRIVATE_KEYS, FEE_MANAGER, PATH_USD, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { isAddressEqual, parseEventLogs, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Abis, Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, registerUser, startWalletApp, SPONSOR_KEY, type WalletTestApp } from "./support/walletApp.ts";
import { resolveWalletConfig } from "../src/wallet/config.ts";
import { authorizeOnChain, DEFAULT_GRANT, fund, funder, pageClient, rootAccount, startPairing } from "./support/walletFlow.ts";

// Device pairing against real PostgreSQL, a real devnet (anvil, Tempo T4) and the real HTTP server: start/poll/lookup,
// rate limits, approve-init, the sponsoring relay and its policy, approve-finalize's receipt checks (failed tx, other
// sender, other key, unknown hash) and the real passkey authorization, and the exactly-once token under racing polls.

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let fast: WalletTestApp; // poll interval 0: racing polls reach the mint
let std: WalletTestApp; // default poll interval (5 s)
let sql: pg.Client;

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  fast = await startWalletApp(db.url, anvil.url, { pollIntervalSeconds: 0 });
  std = await startWalletApp(db.url, anvil.url);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await fast?.close();
  await std?.close();
  await anvil?.stop();
  await db?.drop();
});

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const balance = async (address: Hex) => (await funder(anvil.url).token.getBalance({ token: PATH_USD, account: address })).amount;

describe("device/start and poll", () => {
  it("returns a consonant code, an unguessable device id, the approve URL, a 5-minute expiry; only hashes are stored", async () => {
    const before = Date.now();
    const res = await call(std.url, "POST", "/api/wallet/device/start", { body: { agent_label: "my agent" } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["approve_url", "code", "device_id", "expires_at", "pairing_id", "poll_interval_seconds"]);
    expect(res.body.code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(res.body.approve_url).toBe(`${std.url}/approve?code=${res.body.code}`);
    expect(res.body.poll_interval_seconds).toBe(5);
    const expires = new Date(res.body.expires_at).getTime();
    expect(expires - before).toBeGreaterThanOrEqual(5 * 60_000 - 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(res.body.device_id.length).toBeGreaterThanOrEqual(40);
    const { rows } = await sql.query("SELECT code, device_id_hash, agent_label, status FROM device_pairings WHERE id = $1", [res.body.pairing_id]);
    expect(rows).toEqual([{ code: res.body.code.replace("-", ""), device_id_hash: sha256(res.body.device_id), agent_label: "my agent", status: "pending" }]);
    expect(JSON.stringify(rows)).not.toContain(res.body.device_id);
    expect((await call(std.url, "GET", `/api/wallet/device/poll?device_id=${res.body.device_id}`)).body).toEqual({ status: "pending" });
  });

  it("answers 429 slow_down with Retry-After to a device that polls faster than the interval", async () => {
    const s = await startPairing(std.url);
    expect((await call(std.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)).status).toBe(200);
    const again = await call(std.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`);
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe("slow_down");
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThanOrEqual(4);
    // once the interval has passed (moved back in the database), polling is fine again
    await sql.query("UPDATE device_pairings SET last_polled_at = now() - interval '5 seconds' WHERE id = $1", [s.pairing_id]);
    expect((await call(std.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)).status).toBe(200);
    // ten at once from one device: at most one is answered
    await sql.query("UPDATE device_pairings SET last_polled_at = now() - interval '5 seconds' WHERE id = $1", [s.pairing_id]);
    const burst = await Promise.all(Array.from({ length: 10 }, () => call(std.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(1);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(9);
  });

  it("reports expired after 5 minutes; unknown device ids are 404", async () => {
    const s = await startPairing(fast.url);
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 second' WHERE id = $1", [s.pairing_id]);
    expect((await call(fast.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)).body).toEqual({ status: "expired" });
    const unknown = await call(fast.url, "GET", `/api/wallet/device/poll?device_id=dev_${"A".repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    expect((await call(fast.url, "GET", "/api/wallet/device/poll?device_id=garbage")).status).toBe(404);
    expect((await call(fast.url, "GET", "/api/wallet/device/poll")).status).toBe(400);
  });

  it("rate-limits start per client IP (10 per minute) with 429 rate_limited and Retry-After", async () => {
    const own = await startWalletApp(db.url, anvil.url, { startPerMinute: resolveWalletConfig().startPerMinute });
    try {
      const results = [];
      for (let i = 0; i < 12; i++) results.push(await call(own.url, "POST", "/api/wallet/device/start", { body: {} }));
      expect(results.slice(0, 10).every((r) => r.status === 200)).toBe(true);
      expect(results[10]!.status).toBe(429);
      expect(results[10]!.body.error.code).toBe("rate_limited");
      expect(Number(results[10]!.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });

  it("refuses labels over 100 characters or with control characters", async () => {
    expect((await call(fast.url, "POST", "/api/wallet/device/start", { body: { agent_label: "x".repeat(101) } })).body.error.code).toBe("invalid_label");
    expect((await call(fast.url, "POST", "/api/wallet/device/start", { body: { agent_label: "a\nb" } })).status).toBe(400);
    expect((await call(fast.url, "POST", "/api/wallet/device/start", { body: { agent_label: "x".repeat(100) } })).status).toBe(200);
  });
});

describe("device/lookup (approval page)", () => {
  it("needs the user session, normalizes the code, answers 404 / 410 code_expired", async () => {
    const { jar } = await registerUser(fast.url, new SoftAuthenticator());
    const s = await startPairing(fast.url, "lookup agent");
    expect((await call(fast.url, "GET", `/api/wallet/device/lookup?code=${s.code}`)).status).toBe(401);
    const ok = await call(fast.url, "GET", `/api/wallet/device/lookup?code=${s.code.toLowerCase().replace("-", "%20")}`, { jar });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ code: s.code, agent_label: "lookup agent", status: "pending", expires_at: s.expires_at });
    expect((await call(fast.url, "GET", "/api/wallet/device/lookup?code=AAAA-AAAA", { jar })).body.error.code).toBe("invalid_code");
    expect((await call(fast.url, "GET", "/api/wallet/device/lookup?code=BBBB-BBBB", { jar })).status).toBe(404);
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 second' WHERE id = $1", [s.pairing_id]);
    const expired = await call(fast.url, "GET", `/api/wallet/device/lookup?code=${s.code}`, { jar });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe("code_expired");
  });

  it("rate-limits code entry per client IP", async () => {
    const own = await startWalletApp(db.url, anvil.url, { codePerMinute: 5 });
    try {
      const { jar } = await registerUser(own.url, new SoftAuthenticator());
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await call(own.url, "GET", "/api/wallet/device/lookup?code=BBBB-BBBB", { jar })).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
    } finally {
      await own.close();
    }
  });
});

describe("approve-init", () => {
  it("needs the user session and validates caps, ttl, token and code", async () => {
    const { jar } = await registerUser(fast.url, new SoftAuthenticator());
    const s = await startPairing(fast.url);
    const body = { code: s.code, ...DEFAULT_GRANT };
    expect((await call(fast.url, "POST", "/api/wallet/device/approve-init", { body })).status).toBe(401);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...body, code: "nope" }, 400, "invalid_code"],
      [{ ...body, code: "BBBB-BBBB" }, 404, "code_not_found"],
      [{ ...body, spend_cap_wei: "0" }, 400, "invalid_cap"],
      [{ ...body, spend_cap_wei: 10 }, 400, "invalid_cap"],
      [{ ...body, per_call_cap_wei: "10000001" }, 400, "invalid_cap"],
      [{ ...body, session_ttl_seconds: 59 }, 400, "invalid_ttl"],
      [{ ...body, session_ttl_seconds: 30 * 86400 + 1 }, 400, "invalid_ttl"],
      [{ ...body, token: "0x1234" }, 400, "invalid_address"],
    ];
    for (const [b, status, code] of cases) {
      const res = await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: b, jar });
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
  });

  it("generates the agent key, seals it (context = session id), returns what the page needs", async () => {
    const authn = new SoftAuthenticator();
    const { jar, user } = await registerUser(fast.url, authn);
    const s = await startPairing(fast.url, "init agent");
    const res = await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(Object.keys(b).sort()).toEqual([
      "account_keychain_address",
      "agent_key_address",
      "agent_label",
      "agent_private_key",
      "chain",
      "credential_id",
      "expiry_unix",
      "managed_address",
      "pairing_id",
      "per_call_cap_wei",
      "public_key_uncompressed",
      "session_id",
      "spend_cap_wei",
      "token",
    ]);
    expect(b).toMatchObject({
      pairing_id: s.pairing_id,
      credential_id: user.credential_id,
      public_key_uncompressed: user.public_key_uncompressed,
      managed_address: user.managed_address,
      chain: { id: 31337, rpc_url: anvil.url, relay_url: `${fast.url}/api/wallet/relay` },
      account_keychain_address: "0xaaaaaaaa00000000000000000000000000000000",
      token: PATH_USD,
      spend_cap_wei: "10000000",
      per_call_cap_wei: "1000000",
      agent_label: "init agent",
    });
    expect(privateKeyToAccount(b.agent_private_key).address.toLowerCase()).toBe(b.agent_key_address);
    expect(Math.abs(b.expiry_unix - (Math.floor(Date.now() / 1000) + 3600))).toBeLessThanOrEqual(2);
    const {
      rows: [row],
    } = await sql.query("SELECT * FROM wallet_sessions WHERE id = $1", [b.session_id]);
    expect(row).toMatchObject({
      pairing_id: s.pairing_id,
      agent_key_address: b.agent_key_address,
      bearer_token_hash: null,
      on_chain_authorized_at: null,
      agent_label: "init agent",
    });
    expect(JSON.stringify(row)).not.toContain(b.agent_private_key.slice(2));
    expect(openSecret(row.agent_key_ciphertext, fast.masterKey, b.session_id)).toBe(b.agent_private_key);
    expect(() => openSecret(row.agent_key_ciphertext, fast.masterKey, "another-session")).toThrow();
    // calling it again (e.g. after a cancelled passkey prompt) replaces the never-authorized key, same session
    const again = await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar });
    expect(again.body.session_id).toBe(b.session_id);
    expect(again.body.agent_key_address).not.toBe(b.agent_key_address);
    // another person cannot take over the pairing
    const other = await registerUser(fast.url, new SoftAuthenticator());
    const taken = await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar: other.jar });
    expect([taken.status, taken.body.error.code]).toEqual([409, "pairing_taken"]);
    // an expired code
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 second' WHERE id = $1", [s.pairing_id]);
    expect((await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).status).toBe(410);
  });
});

describe("relay (gas sponsor)", () => {
  it("sponsors the pending agent-key authorization of a zero-balance passkey account", async () => {
    const authn = new SoftAuthenticator();
    const { jar, user } = await registerUser(fast.url, authn);
    const s = await startPairing(fast.url);
    const init = (await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body;
    expect(await balance(user.managed_address)).toBe(0n);
    const receipt = await authorizeOnChain(fast.url, anvil.url, authn, init);
    expect(receipt.status).toBe("success");
    const fee = parseEventLogs({ abi: Abis.tip20, eventName: "Transfer", logs: receipt.logs }).find((l) => isAddressEqual(l.args.to, FEE_MANAGER));
    expect(fee && isAddressEqual(fee.args.from, Account.fromSecp256k1(SPONSOR_KEY).address)).toBe(true);
    expect(await balance(user.managed_address)).toBe(0n);
    const fin = await call(fast.url, "POST", "/api/wallet/device/approve-finalize", { body: { code: s.code, tx_hash: receipt.transactionHash }, jar });
    expect(fin.status).toBe(200);
    expect(fast.logs.join("")).toMatch(/sponsoring key authorization/);
  });

  it("does not sponsor anything else: other transactions fall back to the sender paying, other methods are refused", async () => {
    const authn = new SoftAuthenticator();
    const { jar, user } = await registerUser(fast.url, authn);
    const s = await startPairing(fast.url);
    const init = (await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body;
    const client = pageClient(authn, fast.url, anvil.url, init.chain.relay_url);
    const sponsorBefore = await balance(Account.fromSecp256k1(SPONSOR_KEY).address);
    const validBefore = () => Math.floor(Date.now() / 1000) + 600;
    // a transfer (even from a user with a pending approval): not sponsored; with no balance it cannot be paid for
    await expect(
      client.token.transferSync({
        token: PATH_USD,
        to: "0x00000000000000000000000000000000000000b2",
        amount: 0n,
        feePayer: true,
        nonceKey: 0n,
        validBefore: validBefore(),
        gas: 300_000n,
        timeout: 5_000,
      } as never),
    ).rejects.toThrow();
    // an authorization of another key: not sponsored either
    await expect(
      client.accessKey.authorizeSync({
        accessKey: { address: privateKeyToAccount(generatePrivateKey()).address, type: "secp256k1" },
        expiry: init.expiry_unix,
        limits: [{ token: PATH_USD, limit: 1n }],
        gas: 2_000_000n,
        feePayer: true,
        nonceKey: 0n,
        validBefore: validBefore(),
        timeout: 5_000,
      } as never),
    ).rejects.toThrow();
    // the right key with a limit above the cap: not sponsored
    await expect(
      client.accessKey.authorizeSync({
        accessKey: { address: init.agent_key_address, type: "secp256k1" },
        expiry: init.expiry_unix,
        limits: [{ token: PATH_USD, limit: BigInt(init.spend_cap_wei) + 1n }],
        gas: 2_000_000n,
        feePayer: true,
        nonceKey: 0n,
        validBefore: validBefore(),
        timeout: 5_000,
      } as never),
    ).rejects.toThrow();
    expect(await balance(Account.fromSecp256k1(SPONSOR_KEY).address)).toBe(sponsorBefore);
    expect(await balance(user.managed_address)).toBe(0n);
    expect(fast.logs.join("")).toMatch(/sponsorship refused/);
    // the relay is not an RPC proxy
    const other = await call(fast.url, "POST", "/api/wallet/relay", {
      body: { jsonrpc: "2.0", id: 7, method: "eth_getBalance", params: [user.managed_address, "latest"] },
    });
    expect(other.body).toMatchObject({ id: 7, error: { code: -32601 } });
    expect((await call(fast.url, "POST", "/api/wallet/relay", { raw: "{nope" })).body.error.code).toBe(-32700);
    expect((await call(fast.url, "GET", "/api/wallet/relay")).status).toBe(405);
    // a sender with no pending approval at all
    const stranger = pageClient(new SoftAuthenticator(), fast.url, anvil.url, init.chain.relay_url);
    await expect(
      stranger.accessKey.authorizeSync({
        accessKey: { address: init.agent_key_address, type: "secp256k1" },
        expiry: init.expiry_unix,
        limits: [{ token: PATH_USD, limit: 1n }],
        gas: 2_000_000n,
        feePayer: true,
        nonceKey: 0n,
        validBefore: validBefore(),
        timeout: 5_000,
      } as never),
    ).rejects.toThrow();
  });
});

describe("approve-finalize", () => {
  let authn: SoftAuthenticator;
  let jar: Record<string, string>;
  let user: { managed_address: Hex };
  let s: Awaited<ReturnType<typeof startPairing>>;
  let init: any; // eslint-disable-line @typescript-eslint/no-explicit-any

  beforeAll(async () => {
    authn = new SoftAuthenticator();
    ({ jar, user } = await registerUser(fast.url, authn));
    await fund(anvil.url, user.managed_address, 5_000_000n); // for the self-paid transactions below
    s = await startPairing(fast.url, "finalize agent");
    init = (await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body;
  });

  const finalize = (tx_hash: string, j = jar, code = s.code) =>
    call(fast.url, "POST", "/api/wallet/device/approve-finalize", { body: { code, tx_hash }, jar: j });

  it("refuses a failed transaction", async () => {
    const f = funder(anvil.url);
    const hash = await f.token.transfer({ token: PATH_USD, to: user.managed_address, amount: 2n ** 70n, gas: 300_000n } as never);
    expect((await f.waitForTransactionReceipt({ hash, timeout: 10_000 })).status).toBe("reverted");
    const res = await finalize(hash);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "authorization_not_verified", message: expect.stringMatching(/^transaction_failed/) });
  });

  it("refuses a transaction from another address (even one that authorizes the same key id for itself)", async () => {
    const other = createOtherRoot();
    const { receipt } = await other.accessKey.authorizeSync({
      accessKey: { address: init.agent_key_address, type: "secp256k1" },
      expiry: init.expiry_unix,
      limits: [{ token: PATH_USD, limit: 1n }],
      gas: 2_000_000n,
    } as never);
    expect(receipt.status).toBe("success");
    const res = await finalize(receipt.transactionHash);
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/^wrong_sender/);
  });

  it("refuses a transaction of the user that authorizes a different key", async () => {
    const root = funderlessRoot();
    const { receipt } = await root.accessKey.authorizeSync({
      accessKey: { address: privateKeyToAccount(generatePrivateKey()).address, type: "secp256k1" },
      expiry: init.expiry_unix,
      limits: [{ token: PATH_USD, limit: 1n }],
      gas: 2_000_000n,
      nonceKey: 0n,
    } as never);
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(user.managed_address);
    const res = await finalize(receipt.transactionHash);
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/^other_key_authorized/);
  });

  it("refuses a plain transfer of the user (no KeyAuthorized)", async () => {
    const root = funderlessRoot();
    const { receipt } = await root.token.transferSync({ token: PATH_USD, to: "0x00000000000000000000000000000000000000b2", amount: 1n, nonceKey: 0n } as never);
    const res = await finalize(receipt.transactionHash);
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/^key_not_authorized/);
  });

  it("answers 404 tx_not_found for an unknown hash after the bounded wait, 400 for a malformed one", async () => {
    const started = Date.now();
    const res = await finalize(`0x${"ab".repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("tx_not_found");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    expect((await finalize("0x1234")).body.error.code).toBe("invalid_tx_hash");
    expect((await finalize(`0x${"ab".repeat(32)}`, {})).status).toBe(401);
  });

  it("accepts the real authorization: records the hash and time on pairing and session; then 409 already_approved", async () => {
    expect((await call(fast.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)).body).toEqual({ status: "pending" });
    const receipt = await authorizeOnChain(fast.url, anvil.url, authn, init);
    // another user cannot finalize it
    const other = await registerUser(fast.url, new SoftAuthenticator());
    expect((await finalize(receipt.transactionHash, other.jar)).body.error.code).toBe("pairing_taken");
    const res = await finalize(receipt.transactionHash);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", pairing_id: s.pairing_id, session_id: init.session_id, authorize_tx_hash: receipt.transactionHash });
    const {
      rows: [p],
    } = await sql.query("SELECT status, authorize_tx_hash, on_chain_authorized_at FROM device_pairings WHERE id = $1", [s.pairing_id]);
    const {
      rows: [w],
    } = await sql.query("SELECT authorize_tx_hash, on_chain_authorized_at FROM wallet_sessions WHERE id = $1", [init.session_id]);
    expect(p.status).toBe("approved");
    expect(p.authorize_tx_hash).toBe(receipt.transactionHash);
    expect(w.authorize_tx_hash).toBe(receipt.transactionHash);
    expect(w.on_chain_authorized_at).toEqual(p.on_chain_authorized_at);
    const again = await finalize(receipt.transactionHash);
    expect([again.status, again.body.error.code]).toEqual([409, "already_approved"]);
    expect((await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body.error.code).toBe(
      "already_approved",
    );
  });

  it("answers 409 not_initialized without approve-init and 410 code_expired (at once, no receipt wait) once expired", async () => {
    const p = await startPairing(fast.url);
    const res = await finalize(`0x${"cd".repeat(32)}`, jar, p.code);
    expect([res.status, res.body.error.code]).toEqual([409, "not_initialized"]);
    await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: p.code, ...DEFAULT_GRANT }, jar });
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 second' WHERE id = $1", [p.pairing_id]);
    const started = Date.now();
    const expired = await finalize(`0x${"cd".repeat(32)}`, jar, p.code);
    expect([expired.status, expired.body.error.code]).toEqual([410, "code_expired"]);
    expect(Date.now() - started).toBeLessThan(2_500); // refused before the (3 s) receipt wait
  });

  function funderlessRoot() {
    return rootClient(rootAccount(authn, fast.url));
  }
});

describe("pairing states: poll and approve-finalize agree (spec §3: no expired → approved)", () => {
  // finalize waits up to 15 s for a receipt here (the race below mines after the pairing expired)
  let t: WalletTestApp;
  beforeAll(async () => {
    t = await startWalletApp(db.url, anvil.url, { pollIntervalSeconds: 0, receiptTimeoutMs: 15_000 });
  });
  afterAll(async () => {
    await t?.close();
  });
  const poll = async (deviceId: string) => (await call(t.url, "GET", `/api/wallet/device/poll?device_id=${deviceId}`)).body;
  const stored = async (pairingId: string) =>
    (
      await sql.query(
        "SELECT p.status, p.authorize_tx_hash, s.on_chain_authorized_at FROM device_pairings p JOIN wallet_sessions s ON s.pairing_id = p.id WHERE p.id = $1",
        [pairingId],
      )
    ).rows[0];

  /** A pairing approve-init'ed by a fresh user; `authorize` puts the agent key's authorization on chain (sponsored). */
  async function initialized() {
    const authn = new SoftAuthenticator();
    const { jar } = await registerUser(t.url, authn);
    const s = await startPairing(t.url);
    const init = (await call(t.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body;
    const finalize = (txHash: string) => call(t.url, "POST", "/api/wallet/device/approve-finalize", { body: { code: s.code, tx_hash: txHash }, jar });
    return { authn, jar, s, init, finalize };
  }

  it("pending → expired is final: a valid on-chain authorization finalized after expires_at is refused with 410, and poll keeps saying expired", async () => {
    const { authn, jar, s, init, finalize } = await initialized();
    const receipt = await authorizeOnChain(t.url, anvil.url, authn, init); // authorized in time, on chain
    expect(receipt.status).toBe("success");
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 second' WHERE id = $1", [s.pairing_id]);
    expect(await poll(s.device_id)).toEqual({ status: "expired" });
    const res = await finalize(receipt.transactionHash);
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: { code: "code_expired", message: expect.any(String) } });
    expect(await poll(s.device_id)).toEqual({ status: "expired" });
    expect(await stored(s.pairing_id)).toEqual({ status: "pending", authorize_tx_hash: null, on_chain_authorized_at: null });
    // lookup and approve-init say the same
    expect((await call(t.url, "GET", `/api/wallet/device/lookup?code=${s.code}`, { jar })).body.error.code).toBe("code_expired");
    expect((await call(t.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body.error.code).toBe(
      "code_expired",
    );
  });

  it("expiry during finalize's receipt wait: refused when the approval would be written; poll never goes expired → approved", async () => {
    const { authn, s, init, finalize } = await initialized();
    const client = pageClient(authn, t.url, anvil.url, init.chain.relay_url);
    const rpc = (method: string, params: unknown[] = []) =>
      fetch(anvil.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      }).then((r) => r.json());
    await rpc("evm_setAutomine", [false]);
    let hash: Hex;
    try {
      hash = (await client.accessKey.authorize({
        accessKey: { address: init.agent_key_address, type: "secp256k1" },
        expiry: init.expiry_unix,
        limits: [{ token: init.token, limit: BigInt(init.spend_cap_wei) }],
        gas: 2_000_000n,
        feePayer: true,
        nonceKey: 0n,
        validBefore: Math.floor(Date.now() / 1000) + 600,
      } as never)) as Hex;
      // the pairing expires 1 s from now; finalize starts before that and waits for the (not yet mined) receipt
      await sql.query("UPDATE device_pairings SET expires_at = now() + interval '1 second' WHERE id = $1", [s.pairing_id]);
      const pending = finalize(hash);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await poll(s.device_id)).toEqual({ status: "expired" });
      await rpc("evm_mine");
      const res = await pending;
      expect([res.status, res.body.error?.code]).toEqual([410, "code_expired"]);
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    expect((await funder(anvil.url).getTransactionReceipt({ hash })).status).toBe("success"); // it was a valid authorization
    expect(await poll(s.device_id)).toEqual({ status: "expired" });
    expect(await stored(s.pairing_id)).toEqual({ status: "pending", authorize_tx_hash: null, on_chain_authorized_at: null });
  });

  it("pending → approved → claimed before expiry (the transitions that exist)", async () => {
    const { authn, s, init, finalize } = await initialized();
    expect(await poll(s.device_id)).toEqual({ status: "pending" });
    const receipt = await authorizeOnChain(t.url, anvil.url, authn, init);
    expect((await finalize(receipt.transactionHash)).status).toBe(200);
    // approved is kept past expires_at (the TTL bounds pending only)
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 second' WHERE id = $1", [s.pairing_id]);
    expect((await poll(s.device_id)).status).toBe("approved");
    expect(await poll(s.device_id)).toEqual({ status: "claimed" });
  });
});

/** A client signing as `account` directly on the devnet (pays its own fees; no relay). */
function rootClient(account: ReturnType<typeof Account.fromSecp256k1> | ReturnType<typeof rootAccount>) {
  return createDevnetClient({ url: anvil.url, account: account as never });
}
function createOtherRoot() {
  return rootClient(Account.fromSecp256k1(DEV_PRIVATE_KEYS[2]));
}

describe("the token is minted exactly once", () => {
  it("20 racing polls on an approved pairing: exactly one gets the token, the rest read claimed", async () => {
    const authn = new SoftAuthenticator();
    const { jar } = await registerUser(fast.url, authn);
    const s = await startPairing(fast.url);
    const init = (await call(fast.url, "POST", "/api/wallet/device/approve-init", { body: { code: s.code, ...DEFAULT_GRANT }, jar })).body;
    const receipt = await authorizeOnChain(fast.url, anvil.url, authn, init);
    expect(
      (await call(fast.url, "POST", "/api/wallet/device/approve-finalize", { body: { code: s.code, tx_hash: receipt.transactionHash }, jar })).status,
    ).toBe(200);

    const polls = await Promise.all(Array.from({ length: 20 }, () => call(fast.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)));
    expect(polls.every((p) => p.status === 200)).toBe(true);
    const approved = polls.filter((p) => p.body.status === "approved");
    expect(approved).toHaveLength(1);
    expect(polls.filter((p) => p.body.status === "claimed")).toHaveLength(19);
    const token = approved[0]!.body;
    expect(Object.keys(token).sort()).toEqual([
      "access_token",
      "agent_key_address",
      "expires_at",
      "managed_address",
      "per_call_cap_wei",
      "session_id",
      "spend_cap_wei",
      "status",
      "token",
      "token_type",
    ]);
    expect(token).toMatchObject({
      token_type: "Bearer",
      session_id: init.session_id,
      agent_key_address: init.agent_key_address,
      managed_address: init.managed_address,
      spend_cap_wei: "10000000",
      per_call_cap_wei: "1000000",
      token: PATH_USD,
    });
    expect(new Date(token.expires_at).getTime() / 1000).toBe(init.expiry_unix);
    const { rows } = await sql.query("SELECT bearer_token_hash FROM wallet_sessions WHERE id = $1", [init.session_id]);
    expect(rows[0].bearer_token_hash).toBe(sha256(token.access_token));
    expect((await sql.query("SELECT status, claimed_at IS NOT NULL AS c FROM device_pairings WHERE id = $1", [s.pairing_id])).rows[0]).toEqual({
      status: "claimed",
      c: true,
    });
    expect((await call(fast.url, "GET", `/api/wallet/device/poll?device_id=${s.device_id}`)).body).toEqual({ status: "claimed" });
    // the token works
    const session = await call(fast.url, "GET", "/api/wallet/session", { bearer: token.access_token });
    expect(session.body).toMatchObject({ status: "active", session_id: init.session_id });
  });

  it("with the default interval, a burst of 20 polls yields one answer (the token) and 429s", async () => {
    const { started } = await pairWithoutPolling(std);
    const polls = await Promise.all(Array.from({ length: 20 }, () => call(std.url, "GET", `/api/wallet/device/poll?device_id=${started.device_id}`)));
    expect(polls.filter((p) => p.status === 200 && p.body.status === "approved" && p.body.access_token)).toHaveLength(1);
    expect(polls.filter((p) => p.status === 429)).toHaveLength(19);
  });
});

async function pairWithoutPolling(t: WalletTestApp) {
  const authn = new SoftAuthenticator();
  const { jar } = await registerUser(t.url, authn);
  const started = await startPairing(t.url);
  const init = (await call(t.url, "POST", "/api/wallet/device/approve-init", { body: { code: started.code, ...DEFAULT_GRANT }, jar })).body;
  const receipt = await authorizeOnChain(t.url, anvil.url, authn, init);
  expect(
    (await call(t.url, "POST", "/api/wallet/device/approve-finalize", { body: { code: started.code, tx_hash: receipt.transactionHash }, jar })).status,
  ).toBe(200);
  return { started };
}
