import { createTestDatabase } from "@agent-ledger/db/testing";
import { startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, registerUser, startWalletApp, type Call, type WalletTestApp } from "./support/walletApp.ts";
import { fund, pairAgent } from "./support/walletFlow.ts";

// The owner API over GraphQL (docs/wallet.md § Owner console, GraphQL): against PostgreSQL, a devnet and the real
// HTTP server, with real passkey sessions (software authenticator) of two owners. The answers equal REST's (one
// implementation: wallet/owner.ts ownerOps), another owner's ids are not_found, the cookie is the only credential,
// cookie mutations pass the cross-site check, and a revoke through GraphQL refuses the agent's next payment.

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: WalletTestApp;

const req = (method: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<Call> => call(t.url, method, path, options);
const gql = (query: string, variables: Record<string, unknown> = {}, options: Parameters<typeof call>[3] = {}) =>
  call(t.url, "POST", "/graphql", { ...options, body: { query, variables } });
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase();

const SESSION_FIELDS = `id agentLabel agentKeyAddress token status createdAt expiresAt spendCapWei perCallCapWei spendUsedWei
  spendReservedWei spendRemainingWei onChainAuthorizedAt authorizeTxHash revokedAt revokedBy paymentsCount
  chainRevoke { status txHash explorerUrl error updatedAt } lastPayment { id createdAt to amountWei status txHash }`;

/** A REST session answer in the GraphQL field names (the same values). */
function asGraphql(s: Record<string, any>) {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return {
    id: s.session_id,
    agentLabel: s.agent_label,
    agentKeyAddress: s.agent_key_address,
    token: s.token,
    status: s.status,
    createdAt: s.created_at,
    expiresAt: s.expires_at,
    spendCapWei: s.spend_cap_wei,
    perCallCapWei: s.per_call_cap_wei,
    spendUsedWei: s.spend_used_wei,
    spendReservedWei: s.spend_reserved_wei,
    spendRemainingWei: s.spend_remaining_wei,
    onChainAuthorizedAt: s.on_chain_authorized_at,
    authorizeTxHash: s.authorize_tx_hash,
    revokedAt: s.revoked_at,
    revokedBy: s.revoked_by,
    paymentsCount: s.payments_count,
    chainRevoke: {
      status: s.chain_revoke.status,
      txHash: s.chain_revoke.tx_hash,
      explorerUrl: s.chain_revoke.explorer_url,
      error: s.chain_revoke.error,
      updatedAt: s.chain_revoke.updated_at,
    },
    lastPayment: s.last_payment && {
      id: s.last_payment.id,
      createdAt: s.last_payment.created_at,
      to: s.last_payment.to,
      amountWei: s.last_payment.amount_wei,
      status: s.last_payment.status,
      txHash: s.last_payment.tx_hash,
    },
  };
}

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  t = await startWalletApp(db.url, anvil.url, { pollIntervalSeconds: 0 });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await anvil?.stop();
  await db?.drop();
});

describe("owner API over GraphQL", () => {
  const authn = new SoftAuthenticator();
  let jar: Record<string, string>;
  let first: Awaited<ReturnType<typeof pairAgent>>;
  let second: Awaited<ReturnType<typeof pairAgent>>;
  let other: { jar: Record<string, string> };

  it("sessions, payments (pages, newest first) and balances equal the REST answers exactly", async () => {
    ({ jar } = await registerUser(t.url, authn, "owner one"));
    first = await pairAgent(t.url, anvil.url, { authn, jar, label: "first agent", grant: { spend_cap_wei: "10000001", per_call_cap_wei: "2000000" } });
    second = await pairAgent(t.url, anvil.url, { authn, jar, label: "second agent" });
    await fund(anvil.url, first.token.managed_address, 50_000_000n);
    const to = randomAddress();
    for (const [amount, memo] of [
      ["1000000", "one"],
      ["250001", "two"],
      ["3", "three"],
    ] as const) {
      expect((await req("POST", "/api/wallet/pay", { bearer: first.token.access_token, body: { to, amount_wei: amount, memo } })).status).toBe(200);
    }

    const rest = await req("GET", "/api/wallet/sessions", { jar });
    const list = await gql(`{ walletSessions { managedAddress items { ${SESSION_FIELDS} } } }`, {}, { jar });
    expect(list.status).toBe(200);
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.walletSessions).toEqual({ managedAddress: rest.body.managed_address, items: rest.body.items.map(asGraphql) });
    const s1 = list.body.data.walletSessions.items[1];
    expect(s1).toMatchObject({
      id: first.token.session_id,
      status: "active",
      spendUsedWei: "1250004",
      spendRemainingWei: "8749997",
      paymentsCount: 3,
      lastPayment: { amountWei: "3", to },
    });

    const one = await gql(`query($id: ID!) { walletSession(id: $id) { ${SESSION_FIELDS} } }`, { id: first.token.session_id }, { jar });
    expect(one.body.data.walletSession).toEqual(asGraphql((await req("GET", `/api/wallet/sessions/${first.token.session_id}`, { jar })).body));

    const pageQuery = `query($id: ID!, $first: Int, $after: String) { walletSessionPayments(id: $id, first: $first, after: $after) {
      sessionId nextCursor items { id createdAt to amountWei token memo status txHash explorerUrl error } } }`;
    const p1 = await gql(pageQuery, { id: first.token.session_id, first: 2 }, { jar });
    const r1 = await req("GET", `/api/wallet/sessions/${first.token.session_id}/payments?limit=2`, { jar });
    expect(p1.body.data.walletSessionPayments).toEqual({
      sessionId: r1.body.session_id,
      nextCursor: r1.body.next_cursor,
      items: r1.body.items.map((p: Record<string, string>) => ({
        id: p.id,
        createdAt: p.created_at,
        to: p.to,
        amountWei: p.amount_wei,
        token: p.token,
        memo: p.memo,
        status: p.status,
        txHash: p.tx_hash,
        explorerUrl: p.explorer_url,
        error: p.error,
      })),
    });
    expect(p1.body.data.walletSessionPayments.items.map((p: { memo: string }) => p.memo)).toEqual(["three", "two"]);
    const p2 = await gql(pageQuery, { id: first.token.session_id, first: 2, after: p1.body.data.walletSessionPayments.nextCursor }, { jar });
    expect(p2.body.data.walletSessionPayments.items.map((p: { memo: string; amountWei: string }) => [p.memo, p.amountWei])).toEqual([["one", "1000000"]]);
    expect(p2.body.data.walletSessionPayments.nextCursor).toBeNull();
    for (const [vars, code] of [
      [{ first: 0 }, "invalid_limit"],
      [{ first: 101 }, "invalid_limit"],
      [{ after: "nope" }, "invalid_cursor"],
    ] as const) {
      const bad = await gql(pageQuery, { id: first.token.session_id, ...vars }, { jar });
      expect(bad.body.errors[0].extensions.code, JSON.stringify(vars)).toBe(code);
    }

    const balances = await gql("{ walletBalances { managedAddress balances { token symbol decimals balanceWei } } }", {}, { jar });
    const restBalances = await req("GET", "/api/wallet/balances", { jar });
    expect(balances.body.data.walletBalances).toEqual({
      managedAddress: restBalances.body.managed_address,
      balances: restBalances.body.balances.map((b: Record<string, string>) => ({
        token: b.token,
        symbol: b.symbol,
        decimals: b.decimals,
        balanceWei: b.balance_wei,
      })),
    });
  }, 180_000);

  it("only the owner's passkey cookie: no credential or an agent's bearer is unauthorized; another owner sees nothing and gets not_found", async () => {
    for (const options of [{}, { bearer: first.token.access_token }]) {
      const res = await gql("{ walletSessions { items { id } } }", {}, options);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe("unauthorized");
    }
    other = await registerUser(t.url, new SoftAuthenticator(), "owner two");
    expect((await gql("{ walletSessions { items { id } } }", {}, { jar: other.jar })).body.data.walletSessions.items).toEqual([]);
    const id = first.token.session_id;
    for (const [query, vars] of [
      ["query($id: ID!) { walletSession(id: $id) { id } }", { id }],
      ["query($id: ID!) { walletSessionPayments(id: $id) { items { id } } }", { id }],
      ["query($id: ID!) { walletSession(id: $id) { id } }", { id: "not-a-uuid" }],
      ["mutation($id: ID!) { revokeWalletSession(id: $id) { sessions { id } } }", { id }],
      ['mutation($ids: [ID!]!) { confirmWalletRevoke(sessionIds: $ids, error: "x") { id } }', { ids: [id] }],
    ] as const) {
      const res = await gql(query, vars, { jar: other.jar });
      expect(res.body.errors?.[0]?.extensions?.code, query).toBe("not_found");
    }
    const all = await gql("mutation { revokeAllWalletSessions { sessions { id } chainRevokeRequest { sessionIds } } }", {}, { jar: other.jar });
    expect(all.body.data.revokeAllWalletSessions).toEqual({ sessions: [], chainRevokeRequest: null });
    // the first owner's sessions are untouched
    const mine = await req("GET", "/api/wallet/sessions", { jar });
    expect(mine.body.items.map((s: { status: string }) => s.status)).toEqual(["active", "active"]);
  }, 60_000);

  it("a cookie mutation from another origin, or with no origin at all, is refused (cross_site_request) and revokes nothing; GET cannot mutate", async () => {
    const mutation = `mutation { revokeWalletSession(id: "${first.token.session_id}") { sessions { id } } }`;
    for (const headers of [{ origin: "http://evil.test" }, { origin: null }]) {
      const res = await gql(mutation, {}, { jar, headers });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].extensions.code).toBe("cross_site_request");
    }
    const viaGet = await req("GET", `/graphql?query=${encodeURIComponent(mutation)}`, { jar, headers: { accept: "application/json" } });
    expect(viaGet.status).toBe(405);
    expect((await req("GET", `/api/wallet/sessions/${first.token.session_id}`, { jar })).body.status).toBe("active");
  });

  it("revoke through GraphQL: the next payment is refused, the answer names the key to revoke on chain; revoke-all takes the rest", async () => {
    const res = await gql(
      `mutation($id: ID!) { revokeWalletSession(id: $id) {
      sessions { id status revokedBy chainRevoke { status } }
      chainRevokeRequest { sessionIds agentKeyAddresses accountKeychainAddress managedAddress chain { id relayUrl } } } }`,
      { id: first.token.session_id },
      { jar },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.revokeWalletSession.sessions).toEqual([
      { id: first.token.session_id, status: "revoked", revokedBy: "owner", chainRevoke: { status: "pending" } },
    ]);
    expect(res.body.data.revokeWalletSession.chainRevokeRequest).toMatchObject({
      sessionIds: [first.token.session_id],
      agentKeyAddresses: [first.token.agent_key_address],
      managedAddress: first.token.managed_address,
      accountKeychainAddress: "0xaaaaaaaa00000000000000000000000000000000",
      chain: { relayUrl: `${t.url}/api/wallet/relay` },
    });
    const pay = await req("POST", "/api/wallet/pay", { bearer: first.token.access_token, body: { to: randomAddress(), amount_wei: "1" } });
    expect(pay.status).toBe(403);
    expect(pay.body.error.code).toBe("session_revoked");
    // REST reads the same state
    expect((await req("GET", `/api/wallet/sessions/${first.token.session_id}`, { jar })).body).toMatchObject({
      status: "revoked",
      revoked_by: "owner",
      chain_revoke: { status: "pending" },
    });

    const all = await gql("mutation { revokeAllWalletSessions { sessions { id status } chainRevokeRequest { sessionIds } } }", {}, { jar });
    expect(all.body.data.revokeAllWalletSessions.sessions.map((s: { status: string }) => s.status)).toEqual(["revoked", "revoked"]);
    expect(new Set(all.body.data.revokeAllWalletSessions.chainRevokeRequest.sessionIds)).toEqual(new Set([first.token.session_id, second.token.session_id]));
    expect((await req("POST", "/api/wallet/pay", { bearer: second.token.access_token, body: { to: randomAddress(), amount_wei: "1" } })).body.error.code).toBe(
      "session_revoked",
    );

    const cancelled = await gql(
      `mutation($ids: [ID!]!) { confirmWalletRevoke(sessionIds: $ids, error: "prompt cancelled") { id chainRevoke { status error } } }`,
      { ids: [second.token.session_id] },
      { jar },
    );
    expect(cancelled.body.data.confirmWalletRevoke).toEqual([{ id: second.token.session_id, chainRevoke: { status: "failed", error: "prompt cancelled" } }]);
  }, 60_000);
});
