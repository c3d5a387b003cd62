import { createTestDatabase } from "@agent-ledger/db/testing";
import { createDevnetClient, PATH_USD, startAnvil, withTimeout, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { encodeFunctionData, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Abis, Account, Actions } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, registerUser, startWalletApp, type Call, type WalletTestApp } from "./support/walletApp.ts";
import { fund, pageClient, pairAgent } from "./support/walletFlow.ts";

// The owner's console API (docs/wallet.md § Owner console) against PostgreSQL, a devnet and the real HTTP server:
// sessions with usage, payments (cursor pages), balances, revoke in the database and on chain (the passkey signs
// revokeKey through our relay, gas sponsored; confirmed by reading the keychain), revoke all, the relay's refusals,
// and owner isolation (another owner's ids are 404).

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: WalletTestApp;
let sql: pg.Client;

const req = (method: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<Call> => call(t.url, method, path, options);
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Hex;
const reader = () => createDevnetClient({ url: anvil.url });

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  t = await startWalletApp(db.url, anvil.url, { pollIntervalSeconds: 0 });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await anvil?.stop();
  await db?.drop();
});

/** Signs and submits what the console page submits: the request's revokeKey calls, through the relay (sponsored). */
async function revokeOnChain(
  authn: SoftAuthenticator,
  request: { agent_key_addresses: string[]; chain: { relay_url: string } },
  keys = request.agent_key_addresses,
) {
  // every JSON-RPC call through our relay, as the console page does (its CSP allows only its own origin)
  const client = pageClient(authn, t.url, request.chain.relay_url, request.chain.relay_url);
  const receipt = (await withTimeout(
    client.sendTransactionSync({
      calls: keys.map((k) => Actions.accessKey.revoke.call({ accessKey: k as Hex })),
      gas: 1_000_000n,
      feePayer: true,
      nonceKey: 0n,
      validBefore: Math.floor(Date.now() / 1000) + 600,
    } as never),
    20_000,
    "revoke agent key",
  )) as { status: string; transactionHash: Hex };
  return receipt;
}

/** A transfer signed directly with the agent key (bypassing our API): the chain's answer. */
async function directAgentTransfer(agentPrivateKey: Hex, managed: Hex, amount: bigint): Promise<string> {
  const agent = Account.fromSecp256k1(agentPrivateKey, { access: managed } as never);
  const c = createDevnetClient({ url: anvil.url, account: agent as never });
  try {
    const hash = await c.token.transfer({ token: PATH_USD, to: randomAddress(), amount } as never);
    const r = await reader().waitForTransactionReceipt({ hash, timeout: 5_000 });
    return r.status;
  } catch {
    return "refused";
  }
}

describe("owner console API", () => {
  const authn = new SoftAuthenticator();
  let jar: Record<string, string>;
  let managed: Hex;
  let first: Awaited<ReturnType<typeof pairAgent>>;
  let second: Awaited<ReturnType<typeof pairAgent>>;

  it("lists the owner's sessions with exact usage and the last payment; payments newest first in cursor pages; balances from the chain", async () => {
    ({ jar } = await registerUser(t.url, authn, "owner one"));
    first = await pairAgent(t.url, anvil.url, { authn, jar, label: "first agent", grant: { spend_cap_wei: "10000001", per_call_cap_wei: "2000000" } });
    second = await pairAgent(t.url, anvil.url, { authn, jar, label: "second agent" });
    managed = first.token.managed_address;
    await fund(anvil.url, managed, 50_000_000n);
    const to = randomAddress();
    for (const [amount, memo] of [
      ["1000000", "one"],
      ["250001", "two"],
      ["3", "three"],
    ] as const) {
      const pay = await req("POST", "/api/wallet/pay", { bearer: first.token.access_token, body: { to, amount_wei: amount, memo } });
      expect(pay.status).toBe(200);
    }

    const list = await req("GET", "/api/wallet/sessions", { jar });
    expect(list.status).toBe(200);
    expect(list.body.managed_address).toBe(managed);
    expect(list.body.items.map((s: { agent_label: string }) => s.agent_label)).toEqual(["second agent", "first agent"]);
    const s1 = list.body.items[1];
    expect(s1).toMatchObject({
      session_id: first.token.session_id,
      status: "active",
      spend_cap_wei: "10000001",
      per_call_cap_wei: "2000000",
      spend_used_wei: "1250004",
      spend_remaining_wei: "8749997",
      payments_count: 3,
      revoked_at: null,
      chain_revoke: { status: null, tx_hash: null, error: null },
      last_payment: { to, amount_wei: "3", status: "sent" },
    });
    expect(s1.created_at).toMatch(/Z$/);
    expect(s1.expires_at).toMatch(/Z$/);

    const p1 = await req("GET", `/api/wallet/sessions/${first.token.session_id}/payments?limit=2`, { jar });
    expect(p1.status).toBe(200);
    expect(p1.body.items.map((p: { memo: string }) => p.memo)).toEqual(["three", "two"]);
    expect(p1.body.items[0]).toMatchObject({ to, amount_wei: "3", status: "sent", token: PATH_USD });
    expect(p1.body.items[0].explorer_url).toBe(`https://explore.test/tx/${p1.body.items[0].tx_hash}`);
    expect(p1.body.next_cursor).toEqual(expect.any(String));
    const p2 = await req("GET", `/api/wallet/sessions/${first.token.session_id}/payments?limit=2&cursor=${p1.body.next_cursor}`, { jar });
    expect(p2.body.items.map((p: { memo: string }) => p.memo)).toEqual(["one"]);
    expect(p2.body.next_cursor).toBeNull();
    expect((await req("GET", `/api/wallet/sessions/${first.token.session_id}/payments?cursor=nope`, { jar })).body.error.code).toBe("invalid_cursor");
    expect((await req("GET", `/api/wallet/sessions/${first.token.session_id}/payments?limit=0`, { jar })).body.error.code).toBe("invalid_limit");

    const balances = await req("GET", "/api/wallet/balances", { jar });
    expect(balances.status).toBe(200);
    const chainBalance = (await reader().token.getBalance({ token: PATH_USD, account: managed })).amount;
    expect(balances.body.balances).toEqual([{ token: PATH_USD, symbol: expect.any(String), decimals: 6, balance_wei: chainBalance.toString() }]);

    expect((await req("GET", "/api/wallet/sessions")).status).toBe(401);
    expect((await req("GET", "/api/wallet/balances")).status).toBe(401);
  }, 120_000);

  it("a second owner sees nothing of the first: empty list, every id of the first is 404 (read, payments, revoke, confirm)", async () => {
    const other = await registerUser(t.url, new SoftAuthenticator(), "owner two");
    expect((await req("GET", "/api/wallet/sessions", { jar: other.jar })).body.items).toEqual([]);
    const id = first.token.session_id;
    for (const [method, path, body] of [
      ["GET", `/api/wallet/sessions/${id}`, undefined],
      ["GET", `/api/wallet/sessions/${id}/payments`, undefined],
      ["POST", `/api/wallet/sessions/${id}/revoke`, {}],
      ["POST", "/api/wallet/sessions/revoke-confirm", { session_ids: [id] }],
      ["GET", "/api/wallet/sessions/not-a-uuid", undefined],
    ] as const) {
      const res = await req(method, path, { jar: other.jar, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    const all = await req("POST", "/api/wallet/sessions/revoke-all", { jar: other.jar, body: {} });
    expect(all.body).toEqual({ sessions: [], chain_revoke_request: null });
    expect((await sql.query("SELECT count(*)::int AS n FROM wallet_sessions WHERE revoked_at IS NOT NULL")).rows[0].n).toBe(0);
  });

  it("the relay refuses to sponsor anything but a revokeKey of a key the owner revoked in our database", async () => {
    const client = pageClient(authn, t.url, anvil.url, `${t.url}/api/wallet/relay`);
    const base = { gas: 1_000_000n, feePayer: true, nonceKey: 0n, validBefore: Math.floor(Date.now() / 1000) + 600 };
    const attempt = (calls: { to: Hex; data: Hex }[]) =>
      withTimeout(client.sendTransactionSync({ calls, ...base } as never), 20_000, "relay attempt").then(
        () => "sponsored",
        (e: Error) => e.message,
      );
    // the session is still active: its key cannot be revoked with our gas yet
    expect(await attempt([Actions.accessKey.revoke.call({ accessKey: first.token.agent_key_address }) as never])).not.toBe("sponsored");
    // a transfer of the owner's money, a spending-limit raise: never
    expect(await attempt([{ to: PATH_USD, data: encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [randomAddress(), 1n] }) }])).not.toBe(
      "sponsored",
    );
    expect(
      await attempt([
        {
          to: "0xaaaaaaaa00000000000000000000000000000000",
          data: encodeFunctionData({
            abi: Abis.accountKeychain,
            functionName: "updateSpendingLimit",
            args: [first.token.agent_key_address, PATH_USD, 10n ** 12n],
          } as never),
        },
      ]),
    ).not.toBe("sponsored");
    const refusals = t.logs.filter((l) => l.includes("sponsorship refused"));
    expect(refusals.some((l) => l.includes("revoke: the call revokes a key that is not one of the owner's revoked sessions"))).toBe(true);
    expect(refusals.some((l) => l.includes("revoke: the transaction is not a revoke of an agent key"))).toBe(true);
    expect(refusals.some((l) => l.includes("revoke: updateSpendingLimit is not sponsored"))).toBe(true);
    const meta = await reader().accessKey.getMetadata({ account: managed, accessKey: first.token.agent_key_address });
    expect(meta.isRevoked).toBe(false);
  }, 120_000);

  it("revoke: refused by /pay at once, a failed on-chain step is recorded and retried, the passkey revokes the key on chain (sponsored), the chain refuses the agent key", async () => {
    // control: before the revoke, the agent key can move money directly on chain
    expect(await directAgentTransfer(first.init.agent_private_key, managed, 1n)).toBe("success");
    const id = first.token.session_id;
    const revoked = await req("POST", `/api/wallet/sessions/${id}/revoke`, { jar, body: {} });
    expect(revoked.status).toBe(200);
    expect(revoked.body.sessions[0]).toMatchObject({ session_id: id, status: "revoked", revoked_by: "owner", chain_revoke: { status: "pending" } });
    const request = revoked.body.chain_revoke_request;
    expect(request).toMatchObject({
      session_ids: [id],
      agent_key_addresses: [first.token.agent_key_address],
      managed_address: managed,
      account_keychain_address: "0xaaaaaaaa00000000000000000000000000000000",
    });
    // payments are refused from this moment
    const pay = await req("POST", "/api/wallet/pay", { bearer: first.token.access_token, body: { to: randomAddress(), amount_wei: "1" } });
    expect(pay.status).toBe(403);
    expect(pay.body.error.code).toBe("session_revoked");

    // the page could not submit (prompt cancelled): failed, with the reason; the key is still valid on chain
    const failed = await req("POST", "/api/wallet/sessions/revoke-confirm", { jar, body: { session_ids: [id], error: "the passkey prompt was cancelled" } });
    expect(failed.body.sessions[0].chain_revoke).toMatchObject({ status: "failed", error: "the passkey prompt was cancelled" });
    // retry: revoke again answers the request again; the passkey signs; sponsored (the owner's fee-token balance does not move)
    const again = await req("POST", `/api/wallet/sessions/${id}/revoke`, { jar, body: {} });
    expect(again.body.chain_revoke_request.agent_key_addresses).toEqual([first.token.agent_key_address]);
    const before = (await reader().token.getBalance({ token: PATH_USD, account: managed })).amount;
    const receipt = await revokeOnChain(authn, again.body.chain_revoke_request);
    expect(receipt.status).toBe("success");
    expect((await reader().token.getBalance({ token: PATH_USD, account: managed })).amount).toBe(before);
    const confirmed = await req("POST", "/api/wallet/sessions/revoke-confirm", { jar, body: { session_ids: [id], tx_hash: receipt.transactionHash } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.sessions[0].chain_revoke).toMatchObject({ status: "confirmed", tx_hash: receipt.transactionHash, error: null });
    expect((await reader().accessKey.getMetadata({ account: managed, accessKey: first.token.agent_key_address })).isRevoked).toBe(true);
    // the chain refuses the agent key now
    expect(await directAgentTransfer(first.init.agent_private_key, managed, 1n)).toBe("refused");
    // confirmed: nothing left to sign; the relay no longer sponsors a revoke of that key
    expect((await req("POST", `/api/wallet/sessions/${id}/revoke`, { jar, body: {} })).body.chain_revoke_request).toBeNull();
  }, 180_000);

  it("revoke all: every active session stops; one sponsored transaction revokes every pending key", async () => {
    const third = await pairAgent(t.url, anvil.url, { authn, jar, label: "third agent" });
    const all = await req("POST", "/api/wallet/sessions/revoke-all", { jar, body: {} });
    expect(all.status).toBe(200);
    expect(all.body.sessions.map((s: { status: string }) => s.status)).toEqual(["revoked", "revoked", "revoked"]);
    const request = all.body.chain_revoke_request;
    expect(new Set(request.agent_key_addresses)).toEqual(new Set([second.token.agent_key_address, third.token.agent_key_address]));
    for (const bearer of [second.token.access_token, third.token.access_token]) {
      expect((await req("POST", "/api/wallet/pay", { bearer, body: { to: randomAddress(), amount_wei: "1" } })).body.error.code).toBe("session_revoked");
    }
    const receipt = await revokeOnChain(authn, request);
    const confirmed = await req("POST", "/api/wallet/sessions/revoke-confirm", {
      jar,
      body: { session_ids: request.session_ids, tx_hash: receipt.transactionHash },
    });
    expect(confirmed.body.sessions.map((s: { chain_revoke: { status: string } }) => s.chain_revoke.status)).toEqual(["confirmed", "confirmed"]);
    for (const key of request.agent_key_addresses) expect((await reader().accessKey.getMetadata({ account: managed, accessKey: key })).isRevoked).toBe(true);
  }, 180_000);
});
