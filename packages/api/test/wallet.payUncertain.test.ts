import { createTestDatabase } from "@agent-ledger/db/testing";
import { PATH_USD, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { pad, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../cli/test/support/spawnCli.ts";
import { createWalletChain } from "../src/wallet/chain.ts";
import { resolveWalletConfig } from "../src/wallet/config.ts";
import { purgeIdempotencyKeys } from "../src/wallet/purgeIdempotencyKeys.ts";
import { sweepReservations } from "../src/wallet/sweepReservations.ts";
import { startRpcFaultProxy, type RpcFaultProxy, type SendFault } from "./support/rpcFaultProxy.ts";
import { silentLog } from "./support/startTestApp.ts";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, startWalletApp, type Call, type WalletTestApp } from "./support/walletApp.ts";
import { DEFAULT_GRANT, fund, funder, pairAgent } from "./support/walletFlow.ts";

// A payment is never recorded as failed when it may have gone through (issue 14 §1). The API talks to the devnet
// through a JSON-RPC proxy that forwards the transaction and then fails the answer (JSON-RPC timeout error, dropped
// connection, HTTP 502, no answer at all), or keeps the node unreachable for receipts too. The payment must end `sent`
// with its spending counted once; a retry with the same Idempotency-Key returns the first result and never signs a
// second transaction (counted on chain: the sender's TIP-20 transfers and its per-payment nonce lanes).

const VALIDITY_S = 5; // anvil wants validBefore > now + 3 s
let anvil: AnvilInstance;
let proxy: RpcFaultProxy;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: WalletTestApp;
let sql: pg.Client;

const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Hex;
const pay = (bearer: string, body: unknown, key?: string, headers: Record<string, string> = {}): Promise<Call> =>
  call(t.url, "POST", "/api/wallet/pay", { bearer, body, headers: key === undefined ? headers : { "idempotency-key": key, ...headers } });
const session = async (id: string) =>
  (await sql.query("SELECT spend_used_wei::text AS used, spend_reserved_wei::text AS reserved FROM wallet_sessions WHERE id = $1", [id])).rows[0];
const payments = async (sessionId: string) =>
  (await sql.query("SELECT id, status, tx_hash, error FROM wallet_payments WHERE session_id = $1 ORDER BY created_at", [sessionId])).rows as {
    id: string;
    status: string;
    tx_hash: string | null;
    error: string | null;
  }[];

/** What the chain says the account sent: TIP-20 transfers out of it, and the nonces used on every payment's lane. */
async function onChain(managed: Hex, sessionId: string) {
  const raw = (await (
    await fetch(anvil.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getLogs",
        params: [{ address: PATH_USD, fromBlock: "0x0", toBlock: "latest", topics: [TRANSFER_TOPIC, pad(managed)] }],
      }),
    })
  ).json()) as { result: unknown[] };
  let nonces = 0n;
  for (const p of await payments(sessionId)) {
    nonces += await funder(anvil.url).nonce.getNonce({ account: managed, nonceKey: BigInt(`0x${p.id.replace(/-/g, "")}`) });
  }
  return { transfers: raw.result.length, nonces };
}

async function paired(grant: Partial<typeof DEFAULT_GRANT> = {}) {
  const r = await pairAgent(t.url, anvil.url, { authn: new SoftAuthenticator(), grant });
  await fund(anvil.url, r.token.managed_address, 50_000_000n);
  return { bearer: r.token.access_token, managed: r.token.managed_address, sid: r.token.session_id };
}

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startRpcFaultProxy(anvil.url);
  db = await createTestDatabase();
  t = await startWalletApp(db.url, proxy.url, {
    pollIntervalSeconds: 0,
    startPerMinute: 10_000,
    lookupPerMinute: 10_000,
    paymentValiditySeconds: VALIDITY_S,
    sweepIntervalMs: 0,
  });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await proxy?.close();
  await anvil?.stop();
  await db?.drop();
});

beforeEach(() => {
  proxy.fault = "none";
  proxy.receiptsDown = false;
  proxy.sendError = { code: 4, message: "The transaction was added to the mempool but wasn't processed in 2s" };
});

describe("the node took the transaction but the answer was lost", () => {
  const faults: [SendFault, { code: number; message: string } | null][] = [
    ["error_after_forward", null], // EIP-7966 timeout, code 4
    ["error_after_forward", { code: -32000, message: "request timed out" }], // a refusal code with a timeout message
    ["error_after_forward", { code: -32603, message: "internal error" }],
    ["drop_after_forward", null],
    ["http_502_after_forward", null],
    ["hang_after_forward", null],
  ];
  it.each(faults)(
    "%s %j: the payment ends sent, counted once; a retry with the key makes no second transaction",
    async (fault, sendError) => {
      const a = await paired();
      const to = randomAddress();
      const key = randomUUID();
      const body = { to, amount_wei: "250000", memo: "inv-1" };
      proxy.fault = fault;
      if (sendError) proxy.sendError = sendError;
      const sends0 = proxy.forwardedSends;
      const first = await pay(a.bearer, body, key);
      expect([first.status, first.text]).toEqual([200, expect.any(String)]);
      expect(first.body).toMatchObject({
        from: a.managed,
        to,
        amount_wei: "250000",
        memo: "inv-1",
        spend_used_wei_after: "250000",
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(proxy.forwardedSends - sends0).toBe(1);
      expect(await session(a.sid)).toEqual({ used: "250000", reserved: "0" });
      expect(await payments(a.sid)).toEqual([{ id: expect.any(String), status: "sent", tx_hash: first.body.tx_hash, error: null }]);

      // The client never saw that answer and retries with the same key (the node healthy again or not).
      const again = await pay(a.bearer, body, key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(proxy.forwardedSends - sends0).toBe(1);
      expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });
      expect(await session(a.sid)).toEqual({ used: "250000", reserved: "0" });
    },
    60_000,
  );

  it("the node unreachable until after the answer: 202 payment_pending with the hash, reserved; settled sent by a retry with the key", async () => {
    const a = await paired();
    const key = randomUUID();
    const body = { to: randomAddress(), amount_wei: "400000" };
    proxy.fault = "drop_after_forward";
    proxy.receiptsDown = true;
    const first = await pay(a.bearer, body, key);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      status: "pending",
      code: "payment_pending",
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount_wei: "400000",
      from: a.managed,
    });
    expect(first.headers.get("retry-after")).toMatch(/^\d+$/);
    const [row] = await payments(a.sid);
    expect(row).toMatchObject({ status: "reserved", tx_hash: first.body.tx_hash });
    expect(await session(a.sid)).toEqual({ used: "0", reserved: "400000" });

    // Still unreachable: the retry answers pending again, and signs nothing.
    const sends = proxy.forwardedSends;
    proxy.fault = "none";
    const stillPending = await pay(a.bearer, body, key);
    expect([stillPending.status, stillPending.body.tx_hash]).toEqual([202, first.body.tx_hash]);

    // The node answers again: the retry reads the receipt and settles the payment.
    proxy.receiptsDown = false;
    const settled = await pay(a.bearer, body, key);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ tx_hash: first.body.tx_hash, amount_wei: "400000", spend_used_wei_after: "400000" });
    expect(await pay(a.bearer, body, key)).toMatchObject({ status: 200, body: settled.body });
    expect(proxy.forwardedSends).toBe(sends);
    expect(await session(a.sid)).toEqual({ used: "400000", reserved: "0" });
    expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });
  }, 60_000);

  it("without a key too: the uncertain payment stays reserved and the sweeper settles it sent after validBefore", async () => {
    const a = await paired();
    proxy.fault = "error_after_forward";
    proxy.receiptsDown = true;
    const first = await pay(a.bearer, { to: randomAddress(), amount_wei: "5000" });
    expect([first.status, first.body.code]).toEqual([202, "payment_pending"]);
    proxy.receiptsDown = false;
    const chain = createWalletChain(resolveWalletConfig({ rpcUrl: anvil.url }));
    // before validBefore + 60 s nothing is final, but a receipt is: the sweeper only looks at expired ones
    expect(await sweepReservations({ db: t.pool, chain, log: silentLog }, new Date())).toEqual({ sent: 0, failed: 0, left: 0 });
    expect(await sweepReservations({ db: t.pool, chain, log: silentLog }, new Date(Date.now() + (VALIDITY_S + 61) * 1000))).toEqual({
      sent: 1,
      failed: 0,
      left: 0,
    });
    expect(await payments(a.sid)).toEqual([{ id: expect.any(String), status: "sent", tx_hash: first.body.tx_hash, error: null }]);
    expect(await session(a.sid)).toEqual({ used: "5000", reserved: "0" });
    expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });
  }, 60_000);

  it("a definite refusal by the node fails at once and releases the reservation; nothing is on chain", async () => {
    const a = await paired();
    proxy.fault = "refuse";
    const key = randomUUID();
    const body = { to: randomAddress(), amount_wei: "7000" };
    const started = Date.now();
    const res = await pay(a.bearer, body, key);
    expect([res.status, res.body.error.code]).toEqual([500, "payment_failed"]);
    expect(res.body.error.message).toMatch(/refused.*insufficient fee token balance/);
    expect(Date.now() - started).toBeLessThan(VALIDITY_S * 1000); // no wait for a receipt
    expect(await session(a.sid)).toEqual({ used: "0", reserved: "0" });
    // the same key answers the same failure; a new key pays
    proxy.fault = "none";
    const replayed = await pay(a.bearer, body, key);
    expect([replayed.status, replayed.body.error.code, replayed.headers.get("idempotent-replayed")]).toEqual([500, "payment_failed", "true"]);
    expect((await pay(a.bearer, body, randomUUID())).status).toBe(200);
    expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });
  }, 60_000);
});

describe("Idempotency-Key on POST /api/wallet/pay", () => {
  it("identical requests racing with one key make one transaction", async () => {
    const a = await paired();
    const key = randomUUID();
    const body = { to: randomAddress(), amount_wei: "1000", memo: "race" };
    const sends0 = proxy.forwardedSends;
    const results = await Promise.all(Array.from({ length: 8 }, () => pay(a.bearer, body, key)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(
      statuses.every((s) => s === 200 || s === 202 || (s === 409 && results[statuses.indexOf(s)]!.body.error.code === "idempotency_key_in_use")),
      JSON.stringify(statuses),
    ).toBe(true);
    const hashes = new Set(results.map((r) => r.body.tx_hash).filter(Boolean));
    expect(hashes.size).toBe(1);
    expect(proxy.forwardedSends - sends0).toBe(1);
    expect((await payments(a.sid)).length).toBe(1);
    // whoever asks last gets the settled result
    expect((await pay(a.bearer, body, key)).body.tx_hash).toBe([...hashes][0]);
    expect(await session(a.sid)).toEqual({ used: "1000", reserved: "0" });
    expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });
  }, 60_000);

  it("the same key with another body is 409 idempotency_key_reused; keys are per session; no key means a new payment each time", async () => {
    const a = await paired();
    const b = await paired();
    const key = "invoice-42";
    const to = randomAddress();
    expect((await pay(a.bearer, { to, amount_wei: "100" }, key)).status).toBe(200);
    for (const other of [
      { to, amount_wei: "101" },
      { to: randomAddress(), amount_wei: "100" },
      { to, amount_wei: "100", memo: "x" },
    ]) {
      const res = await pay(a.bearer, other, key);
      expect([res.status, res.body.error.code]).toEqual([409, "idempotency_key_reused"]);
    }
    // the same request spelled differently (address case, an absent memo as "") is the same body
    expect((await pay(a.bearer, { to: to.toUpperCase().replace("0X", "0x"), amount_wei: "100", memo: "" }, key)).status).toBe(200);
    // another session may use the same key for its own payment
    expect((await pay(b.bearer, { to, amount_wei: "100" }, key)).status).toBe(200);
    // without a key, two identical requests are two payments
    expect((await pay(a.bearer, { to, amount_wei: "100" })).status).toBe(200);
    expect((await pay(a.bearer, { to, amount_wei: "100" })).status).toBe(200);
    expect((await onChain(a.managed, a.sid)).transfers).toBe(3);
    expect((await onChain(b.managed, b.sid)).transfers).toBe(1);
  }, 60_000);

  it("a refused first attempt is remembered: the same key answers the same refusal, even once the caps would allow it", async () => {
    const a = await paired({ spend_cap_wei: "1000000", per_call_cap_wei: "600000" });
    expect((await pay(a.bearer, { to: randomAddress(), amount_wei: "600000" }, "first")).status).toBe(200);
    const body = { to: randomAddress(), amount_wei: "500000" };
    const refused = await pay(a.bearer, body, "second");
    expect([refused.status, refused.body.error.code]).toEqual([403, "spend_cap_exceeded"]);
    const again = await pay(a.bearer, body, "second");
    expect([again.status, again.body.error.code, again.body.error.message, again.headers.get("idempotent-replayed")]).toEqual([
      403,
      "spend_cap_exceeded",
      refused.body.error.message,
      "true",
    ]);
    expect((await pay(a.bearer, { to: randomAddress(), amount_wei: "400000" }, "third")).status).toBe(200);
    expect(await session(a.sid)).toEqual({ used: "1000000", reserved: "0" });
  }, 60_000);

  it("an invalid key is 400 invalid_idempotency_key and reserves nothing", async () => {
    const a = await paired();
    let checked = 0;
    for (const key of ["", "two words", "k".repeat(256), "tab\there", "clé"]) {
      const res = await call(t.url, "POST", "/api/wallet/pay", {
        bearer: a.bearer,
        body: { to: randomAddress(), amount_wei: "1" },
        headers: { "idempotency-key": key },
      }).catch((e) => ({ status: -1, body: String(e) }) as unknown as Call);
      if (res.status === -1) continue; // fetch itself refuses some header values
      expect([res.status, res.body.error.code], JSON.stringify(key)).toEqual([400, "invalid_idempotency_key"]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
    // the key is checked after the bearer
    const anon = await call(t.url, "POST", "/api/wallet/pay", { body: { to: randomAddress(), amount_wei: "1" }, headers: { "idempotency-key": "two words" } });
    expect(anon.status).toBe(401);
    expect(await session(a.sid)).toEqual({ used: "0", reserved: "0" });
    expect(await payments(a.sid)).toEqual([]);
  }, 60_000);

  it("keys are kept 24 h, then purged (not while their payment is still reserved)", async () => {
    const a = await paired();
    expect((await pay(a.bearer, { to: randomAddress(), amount_wei: "10" }, "old")).status).toBe(200);
    expect((await pay(a.bearer, { to: randomAddress(), amount_wei: "10" }, "young")).status).toBe(200);
    await sql.query("UPDATE wallet_idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE session_id = $1 AND key = 'old'", [a.sid]);
    await sql.query("UPDATE wallet_idempotency_keys SET created_at = now() - interval '23 hours 59 minutes' WHERE session_id = $1 AND key = 'young'", [a.sid]);
    // an old key whose payment is still in flight stays
    const {
      rows: [p],
    } = await sql.query(
      "INSERT INTO wallet_payments (session_id, to_address, amount_wei, token_address, status) VALUES ($1, $2, 1, $3, 'reserved') RETURNING id",
      [a.sid, randomAddress(), PATH_USD],
    );
    await sql.query(
      "INSERT INTO wallet_idempotency_keys (session_id, key, request_hash, payment_id, created_at) VALUES ($1, 'inflight', $2, $3, now() - interval '2 days')",
      [a.sid, "0".repeat(64), p.id],
    );
    const now = new Date();
    expect(await purgeIdempotencyKeys(t.pool, now)).toBeGreaterThanOrEqual(1);
    const left = (await sql.query("SELECT key FROM wallet_idempotency_keys WHERE session_id = $1 ORDER BY key", [a.sid])).rows.map((r) => r.key);
    expect(left).toEqual(["inflight", "young"]);
    await sql.query("UPDATE wallet_payments SET status = 'failed' WHERE id = $1", [p.id]);
  }, 60_000);
});

describe("agent-ledger pay (the CLI) re-uses its Idempotency-Key on its own retries", () => {
  /** An HTTP proxy in front of the API that forwards the first `lose` pay requests and then drops their answers. */
  async function lossyApiProxy(lose: number) {
    const keys: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      const isPay = req.method === "POST" && req.url === "/api/wallet/pay";
      if (isPay) keys.push(req.headers["idempotency-key"] as string | undefined);
      const drop = isPay && keys.length <= lose;
      const target = new URL(req.url!, t.url);
      const up = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on("data", (c: Buffer) => chunks.push(c));
        upRes.on("end", () => {
          if (drop) return void req.socket.destroy(); // the API answered; the client never hears it
          res.writeHead(upRes.statusCode!, upRes.headers);
          res.end(Buffer.concat(chunks));
        });
      });
      up.on("error", () => req.socket.destroy());
      req.pipe(up);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      keys,
      close: () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    };
  }

  it("the first answer is lost: the CLI retries with the same key, gets the first result, and the chain has one payment", async () => {
    const a = await paired();
    const lossy = await lossyApiProxy(1);
    const dir = await mkdtemp(join(tmpdir(), "al-pay-idem-"));
    try {
      const stored = {
        api: lossy.url,
        access_token: a.bearer,
        token_type: "Bearer",
        session_id: a.sid,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        agent_key_address: "0x0",
        managed_address: a.managed,
        spend_cap_wei: DEFAULT_GRANT.spend_cap_wei,
        per_call_cap_wei: DEFAULT_GRANT.per_call_cap_wei,
        token: PATH_USD,
        agent_label: "test agent",
        paired_at: new Date().toISOString(),
      };
      await writeFile(join(dir, "credentials.json"), JSON.stringify({ version: 1, current: lossy.url, sessions: { [lossy.url]: stored } }), { mode: 0o600 });
      const to = randomAddress();
      const run = await runCli(["--api", lossy.url, "pay", "--to", to, "--amount-wei", "4321", "--memo", "cli-retry", "--json"], {
        env: { AGENT_LEDGER_CONFIG_DIR: dir },
        timeoutMs: 60_000,
      });
      expect([run.code, run.stderr]).toEqual([0, expect.any(String)]);
      const out = JSON.parse(run.stdout);
      expect(out).toMatchObject({ to, amount_wei: "4321", memo: "cli-retry", spend_used_wei_after: "4321" });
      // two requests reached the API, with one key (a fresh UUID for this run)
      expect(lossy.keys).toHaveLength(2);
      expect(lossy.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(lossy.keys[1]).toBe(lossy.keys[0]);
      expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });
      expect(await session(a.sid)).toEqual({ used: "4321", reserved: "0" });

      // a second run is a new payment: a new key
      const second = await runCli(["--api", lossy.url, "pay", "--to", to, "--amount-wei", "4321", "--json"], {
        env: { AGENT_LEDGER_CONFIG_DIR: dir },
        timeoutMs: 60_000,
      });
      expect(second.code).toBe(0);
      expect(lossy.keys).toHaveLength(3);
      expect(lossy.keys[2]).not.toBe(lossy.keys[0]);
      // --idempotency-key re-asks about the first one: its result, no new payment
      const again = await runCli(
        ["--api", lossy.url, "pay", "--to", to, "--amount-wei", "4321", "--memo", "cli-retry", "--idempotency-key", lossy.keys[0]!, "--json"],
        { env: { AGENT_LEDGER_CONFIG_DIR: dir }, timeoutMs: 60_000 },
      );
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual(out);
      expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 2, nonces: 2n });
    } finally {
      await lossy.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the CLI's exit 7 (payment pending)", () => {
  it("a pay whose outcome stays unknown past --pending-timeout / $AGENT_LEDGER_PAY_PENDING_TIMEOUT exits 7 with its key; re-asking with the key settles it", async () => {
    const a = await paired();
    const dir = await mkdtemp(join(tmpdir(), "al-pay-pending-"));
    try {
      const stored = {
        api: t.url,
        access_token: a.bearer,
        token_type: "Bearer",
        session_id: a.sid,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        agent_key_address: "0x0",
        managed_address: a.managed,
        spend_cap_wei: DEFAULT_GRANT.spend_cap_wei,
        per_call_cap_wei: DEFAULT_GRANT.per_call_cap_wei,
        token: PATH_USD,
        agent_label: "test agent",
        paired_at: new Date().toISOString(),
      };
      await writeFile(join(dir, "credentials.json"), JSON.stringify({ version: 1, current: t.url, sessions: { [t.url]: stored } }), { mode: 0o600 });
      const to = randomAddress();
      // the node takes the transaction, the answer is lost and no receipt can be read: the API answers 202 pending
      proxy.fault = "drop_after_forward";
      proxy.receiptsDown = true;
      const started = Date.now();
      const run = await runCli(["--api", t.url, "pay", "--to", to, "--amount-wei", "5555", "--pending-timeout", "2"], {
        env: { AGENT_LEDGER_CONFIG_DIR: dir },
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(7);
      expect(Date.now() - started).toBeLessThan(45_000); // not the 2-minute default
      const key = /idempotency key ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
      expect(run.stderr).toMatch(
        /payment pending: transaction 0x[0-9a-f]{64} was broadcast and its outcome is not known yet \(idempotency key [0-9a-f-]{36}\)/,
      );
      expect(run.stderr).toContain(`--idempotency-key ${key}`);
      expect((await payments(a.sid)).map((p) => p.status)).toEqual(["reserved"]);

      // the same through the environment, with --json: the error's code and exit code on stderr
      const viaEnv = await runCli(["--api", t.url, "pay", "--to", to, "--amount-wei", "5555", "--idempotency-key", key!, "--json"], {
        env: { AGENT_LEDGER_CONFIG_DIR: dir, AGENT_LEDGER_PAY_PENDING_TIMEOUT: "1" },
        timeoutMs: 60_000,
      });
      expect(viaEnv.code, viaEnv.stderr).toBe(7);
      expect(JSON.parse(viaEnv.stderr).error).toMatchObject({ code: "payment_pending", exit_code: 7 });
      expect(proxy.forwardedSends).toBeGreaterThan(0);

      // the node answers again: re-asking with the key learns the outcome, and nothing was paid twice
      proxy.fault = "none";
      proxy.receiptsDown = false;
      const settled = await runCli(["--api", t.url, "pay", "--to", to, "--amount-wei", "5555", "--idempotency-key", key!, "--json"], {
        env: { AGENT_LEDGER_CONFIG_DIR: dir },
        timeoutMs: 60_000,
      });
      expect(settled.code, settled.stderr).toBe(0);
      expect(await onChain(a.managed, a.sid)).toEqual({ transfers: 1, nonces: 1n });

      // a bad window is a usage error, before anything is sent
      const bad = await runCli(["--api", t.url, "pay", "--to", to, "--amount-wei", "5555", "--pending-timeout", "2m"], {
        env: { AGENT_LEDGER_CONFIG_DIR: dir },
        timeoutMs: 30_000,
      });
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--pending-timeout must be whole seconds")]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
