import { createTestDatabase } from "@agent-ledger/db/testing";
import {
  ALPHA_USD,
  PATH_USD,
  buildDemoRegistry,
  createDevnetClient,
  createMppAgent,
  createSenderPool,
  demoKeys,
  demoMppServers,
  mppFingerprint,
  setupMppDemo,
  startAnvil,
  startMppServer,
  type AnvilInstance,
  type DemoAgent,
  type MppAgent,
  type MppChargePayment,
  type MppServer,
  type MppServerRealm,
} from "@agent-ledger/devnet";
import pg from "pg";
import { parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexUntil, loadRegistry } from "./helpers.ts";

// MPP through the official SDK (mppx 0.11.0) on a devnet, indexed with methodology v0.3, compared with what the SDK
// paid. The demo's own services and agents (demoMppServers, registry/demo.json's builder): charges to services with
// their own wallet, a charge with a split, charges to the gateway's realms (two named by the registry, one not), and
// sessions through our StreamChannelEscrow (open → vouchers → settle → top-up → close with refund; a close with no
// voucher; a close without a prior settle; a close with no new voucher). The ledger must equal the SDK's
// Payment-Receipts: per charge, per service, per agent, per client fingerprint, per token, per channel.

const keys = demoKeys();
const lower = (a: string) => a.toLowerCase();
const units = (decimal: string) => parseUnits(decimal, 6);
type ChargeRecord = { agent: DemoAgent; realmId: string; paid: MppChargePayment };
type SessionRecord = { name: string; agent: DemoAgent; realmId: string; channelId: Hex; spent: bigint; deposits: bigint; closeTx: Hex };

/** Which registry entity an SDK charge to a realm belongs to (web-scraping is left out of the registry: the gateway's). */
const SERVICE_OF_REALM: Record<string, string> = {
  "weather-api": "weather-api-mpp",
  "search-api": "search-api-mpp",
  "llm-inference": "llm-inference-mpp",
  "image-generation": "image-generation-mpp",
  "speech-to-text": "speech-to-text-mpp",
  "web-scraping": "tempo-gateway-mpp",
  "rpc-node": "rpc-node-mpp",
};

describe("MPP charges and sessions paid with mppx, indexed by methodology v0.3", () => {
  let anvil: AnvilInstance;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const servers: MppServer[] = [];
  const charges: ChargeRecord[] = [];
  const sessions: SessionRecord[] = [];
  let sql: pg.Client;

  const realm = (id: string): MppServerRealm => servers.flatMap((s) => [...s.realms.values()]).find((r) => r.id === id)!;
  const agentsById = new Map<string, MppAgent>();
  const [alpha, beta, gamma] = keys.agents as [DemoAgent, DemoAgent, DemoAgent];
  const rows = async (where: string, params: unknown[] = []) =>
    (
      await sql.query(
        `SELECT agent_id, kind, amount_wei::text AS amount, token_address, tx_hash, log_index, counterparty_address, routed_to_address,
                             routed_fingerprint, attribution, client_fingerprint, channel_id
                      FROM agent_events WHERE methodology_version = 'v0.3' AND ${where} ORDER BY tx_hash, log_index, agent_id`,
        params,
      )
    ).rows as {
      agent_id: string;
      kind: string;
      amount: string;
      token_address: string;
      tx_hash: string;
      log_index: number;
      counterparty_address: string;
      routed_to_address: string;
      routed_fingerprint: string | null;
      attribution: string | null;
      client_fingerprint: string | null;
      channel_id: string | null;
    }[];

  beforeAll(async () => {
    [anvil, db] = await Promise.all([startAnvil(), createTestDatabase()]);
    const client = createDevnetClient({ url: anvil.url });
    await setupMppDemo({ client, keys, sender: createSenderPool(client) });
    await loadRegistry(db.url, buildDemoRegistry(keys), "registry:demo.json");
    for (const s of demoMppServers(keys))
      servers.push(await startMppServer({ rpcUrl: anvil.url, realms: s.realms, escrowContract: keys.sessionEscrowAddress }));
    for (const a of keys.agents)
      agentsById.set(a.id, createMppAgent({ rpcUrl: anvil.url, privateKey: a.privateKey, clientId: a.clientId, escrowContract: keys.sessionEscrowAddress }));

    const charge = async (agent: DemoAgent, realmId: string) =>
      charges.push({ agent, realmId, paid: await agentsById.get(agent.id)!.charge(realm(realmId).chargeUrl!) });
    for (const id of ["weather-api", "weather-api", "search-api", "llm-inference", "image-generation", "web-scraping"]) await charge(alpha, id);
    for (const id of ["speech-to-text", "weather-api", "llm-inference", "image-generation"]) await charge(beta, id);
    for (const id of ["search-api", "search-api", "speech-to-text", "web-scraping"]) await charge(gamma, id);

    const session = async (
      name: string,
      agent: DemoAgent,
      realmId: string,
      script: (s: ReturnType<MppAgent["session"]>, r: MppServerRealm) => Promise<bigint>,
    ) => {
      const r = realm(realmId);
      const s = agentsById.get(agent.id)!.session(r.sessionUrl!);
      const deposits = units(r.session!.suggestedDeposit) + (await script(s, r));
      const closed = await s.close();
      sessions.push({ name, agent, realmId, channelId: closed!.channelId, spent: BigInt(closed!.spent), deposits, closeTx: closed!.txHash! });
    };
    // A: three requests fill the deposit (0.006 at 0.002), the server settles, the agent tops up, two more, close
    await session("open → vouchers → settle → top-up → close", alpha, "llm-inference", async (s, r) => {
      for (let i = 0; i < 3; i++) await s.request();
      await r.sessions!.settle(s.channelId!);
      await s.topUp(units("0.006"));
      for (let i = 0; i < 2; i++) await s.request();
      return units("0.006");
    });
    // B: opened by a management request, closed with no voucher
    await session("closed with no voucher", beta, "rpc-node", async (s) => {
      await s.openOnly();
      return 0n;
    });
    // C: two requests, no settle: the close pays everything
    await session("close without a prior settle", gamma, "rpc-node", async (s) => {
      for (let i = 0; i < 2; i++) await s.request();
      return 0n;
    });
    // D: one request, settled, then closed with no new voucher: the close pays nothing, refunds the rest
    await session("close with no new voucher", alpha, "rpc-node", async (s, r) => {
      await s.request();
      await r.sessions!.settle(s.channelId!);
      return 0n;
    });
    await Promise.all(servers.map((s) => s.stop()));

    await indexUntil(db.url, anvil.url, await client.getBlockNumber({ cacheTime: 0 }), { methodologyVersion: "v0.3" });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 240_000);

  afterAll(async () => {
    await sql?.end();
    await Promise.allSettled([...servers.map((s) => s.stop()), anvil?.stop(), db?.drop()]);
  });

  it("every SDK charge is in the ledger under its Payment-Receipt's transaction: the service's row, the agent's, split legs routed like the charge", async () => {
    expect(charges).toHaveLength(14);
    for (const { agent, realmId, paid } of charges) {
      const tx = lower(paid.reference);
      const got = await rows("tx_hash = $1 AND kind <> 'fee_paid'", [tx]);
      const service = SERVICE_OF_REALM[realmId]!;
      const splitTotal = paid.splits.reduce((s, x) => s + x.amount, 0n);
      const attribution = service === "tempo-gateway-mpp" ? "recipient_wallet" : "server_id_host";
      const routing = {
        routed_to_address: "",
        routed_fingerprint: paid.serverId,
        client_fingerprint: mppFingerprint(agent.clientId),
        attribution,
        channel_id: null,
      };
      expect(paid.serverId).toBe(mppFingerprint(realm(realmId).realm));
      const expected = [
        { agent_id: agent.id, kind: "payment_sent", amount: (paid.amount - splitTotal).toString(), counterparty_address: lower(paid.recipient), ...routing },
        { agent_id: service, kind: "payment_received", amount: (paid.amount - splitTotal).toString(), counterparty_address: agent.address, ...routing },
        ...paid.splits.map((s) => ({
          agent_id: agent.id,
          kind: "payment_sent",
          amount: s.amount.toString(),
          counterparty_address: lower(s.recipient),
          ...routing,
        })),
      ];
      const pick = (r: Record<string, unknown>) => ({
        agent_id: r.agent_id,
        kind: r.kind,
        amount: r.amount,
        counterparty_address: r.counterparty_address,
        routed_to_address: r.routed_to_address,
        routed_fingerprint: r.routed_fingerprint,
        client_fingerprint: r.client_fingerprint,
        attribution: r.attribution,
        channel_id: r.channel_id,
      });
      const sortKey = (r: { agent_id: unknown; kind: unknown; amount: unknown }) => `${r.agent_id}:${r.kind}:${r.amount}`;
      expect(
        got.map(pick).sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
        `${agent.id} → ${realmId}`,
      ).toEqual(expected.sort((a, b) => sortKey(a).localeCompare(sortKey(b))));
      expect(new Set(got.map((r) => r.token_address))).toEqual(new Set([lower(paid.currency)]));
      // the gateway collects for image-generation and speech-to-text but the charge is theirs: no gateway row
      if (realmId === "image-generation" || realmId === "speech-to-text") expect(got.some((r) => r.agent_id === "tempo-gateway-mpp")).toBe(false);
    }
  });

  it("totals per service, per agent, per client fingerprint and per token equal what the SDK paid", async () => {
    const add = (m: Map<string, bigint>, k: string, v: bigint) => m.set(k, (m.get(k) ?? 0n) + v);
    const received = new Map<string, bigint>();
    const sent = new Map<string, bigint>();
    const byClient = new Map<string, bigint>();
    const byToken = new Map<string, bigint>();
    for (const { agent, realmId, paid } of charges) {
      const splitTotal = paid.splits.reduce((s, x) => s + x.amount, 0n);
      add(received, SERVICE_OF_REALM[realmId]!, paid.amount - splitTotal);
      add(sent, agent.id, paid.amount);
      add(byClient, mppFingerprint(agent.clientId), paid.amount);
      add(byToken, lower(paid.currency), paid.amount);
    }
    for (const s of sessions) {
      add(received, SERVICE_OF_REALM[s.realmId]!, s.spent);
      add(sent, s.agent.id, s.spent);
      add(byToken, PATH_USD, s.spent);
    }
    const totals = new Map(
      (await sql.query("SELECT entity_id, sent_sum_wei::text AS sent, received_sum_wei::text AS received FROM entity_activity_total")).rows.map((r) => [
        r.entity_id as string,
        r,
      ]),
    );
    for (const e of buildDemoRegistry(keys).entities) {
      expect(totals.get(e.id)?.sent ?? "0", `${e.id} sent`).toBe((sent.get(e.id) ?? 0n).toString());
      expect(totals.get(e.id)?.received ?? "0", `${e.id} received`).toBe((received.get(e.id) ?? 0n).toString());
    }
    // the session escrow is an entity (its flows are funding), never a payer or payee
    expect(totals.get("demo-session-escrow") ?? { sent: "0", received: "0" }).toMatchObject({ sent: "0", received: "0" });
    const clients = (
      await sql.query(`SELECT client_fingerprint, sum(amount_wei)::text AS s FROM
        (SELECT DISTINCT ON (tx_hash, log_index) client_fingerprint, amount_wei FROM agent_events
         WHERE methodology_version = 'v0.3' AND kind IN ('payment_sent', 'payment_received') AND client_fingerprint IS NOT NULL ORDER BY tx_hash, log_index) p
       GROUP BY 1`)
    ).rows;
    expect(Object.fromEntries(clients.map((r) => [r.client_fingerprint, r.s]))).toEqual(Object.fromEntries([...byClient].map(([k, v]) => [k, v.toString()])));
    const tokens = (await sql.query("SELECT token_address, sum(amount_sum_wei)::text AS s FROM ledger_token_activity_daily GROUP BY 1")).rows;
    expect(Object.fromEntries(tokens.map((r) => [r.token_address, r.s]))).toEqual({
      [PATH_USD]: byToken.get(PATH_USD)!.toString(),
      [ALPHA_USD]: byToken.get(ALPHA_USD)!.toString(),
    });
    const ledger = (await sql.query("SELECT sum(payments_count)::text AS n, sum(amount_sum_wei)::text AS s FROM ledger_activity_daily")).rows[0];
    const payouts = await rows("attribution = 'session_escrow' AND kind = 'payment_received'");
    const chargeLegs = charges.reduce((n, c) => n + 1 + c.paid.splits.length, 0);
    expect(ledger).toEqual({ n: String(chargeLegs + payouts.length), s: [...byToken.values()].reduce((a, b) => a + b, 0n).toString() });
  });

  it("sessions are counted once: payouts equal the close receipt's spent; deposits, top-ups and refunds are funding; empty closes pay nothing", async () => {
    expect(sessions.map((s) => [s.name, s.spent])).toEqual([
      ["open → vouchers → settle → top-up → close", units("0.010")],
      ["closed with no voucher", 0n],
      ["close without a prior settle", units("0.002")],
      ["close with no new voucher", units("0.001")],
    ]);
    for (const s of sessions) {
      const payee = SERVICE_OF_REALM[s.realmId]!;
      const payeeAddress = lower(realm(s.realmId).session!.payee.address);
      const paid = await rows("channel_id = $1 AND kind IN ('payment_sent', 'payment_received')", [lower(s.channelId)]);
      const received = paid.filter((r) => r.kind === "payment_received");
      expect(
        received.every(
          (r) =>
            r.agent_id === payee && r.counterparty_address === s.agent.address && r.attribution === "session_escrow" && r.routed_to_address === payeeAddress,
        ),
        s.name,
      ).toBe(true);
      expect(
        received.reduce((a, r) => a + BigInt(r.amount), 0n),
        s.name,
      ).toBe(s.spent);
      // each payout appears once per side: the agent's payment_sent mirrors the service's payment_received
      expect(
        paid.filter((r) => r.kind === "payment_sent").map((r) => [r.agent_id, r.tx_hash, r.amount]),
        s.name,
      ).toEqual(received.map((r) => [s.agent.id, r.tx_hash, r.amount]));
      const funding = await rows("channel_id = $1 AND kind IN ('funding_sent', 'funding_received') AND agent_id = $2", [lower(s.channelId), s.agent.id]);
      const fundedIn = funding.filter((r) => r.kind === "funding_sent").reduce((a, r) => a + BigInt(r.amount), 0n);
      const refunded = funding.filter((r) => r.kind === "funding_received").reduce((a, r) => a + BigInt(r.amount), 0n);
      expect([fundedIn, refunded], s.name).toEqual([s.deposits, s.deposits - s.spent]);
      expect(
        funding.every((r) => r.counterparty_address === keys.sessionEscrowAddress),
        s.name,
      ).toBe(true);
    }
    const [a, b, , d] = sessions as [SessionRecord, SessionRecord, SessionRecord, SessionRecord];
    // A's payouts: the settle of three vouchers, then the close's two
    expect((await rows("channel_id = $1 AND kind = 'payment_received'", [lower(a.channelId)])).map((r) => r.amount)).toEqual(
      expect.arrayContaining([units("0.006").toString(), units("0.004").toString()]),
    );
    expect(await rows("channel_id = $1 AND kind LIKE 'payment_%'", [lower(b.channelId)])).toEqual([]);
    expect(await rows("tx_hash = $1 AND kind LIKE 'payment_%'", [lower(d.closeTx)])).toEqual([]);
  });

  it("no payer is ever a provider: provider views are the realms' serverIds and the session payees, with the SDK's amounts", async () => {
    const expected = new Map<string, bigint>();
    const add = (k: string, v: bigint) => expected.set(k, (expected.get(k) ?? 0n) + v);
    for (const { paid } of charges) add(paid.serverId, paid.amount); // split legs are routed like their charge
    for (const s of sessions) if (s.spent > 0n) add(lower(realm(s.realmId).session!.payee.address), s.spent);
    const providers = (await sql.query("SELECT provider_key, pattern, amount_sum_wei::text AS s FROM provider_activity_total")).rows;
    expect(Object.fromEntries(providers.map((p) => [p.provider_key, p.s]))).toEqual(Object.fromEntries([...expected].map(([k, v]) => [k, v.toString()])));
    const payers = new Set<string>(keys.agents.flatMap((a) => [a.address]));
    for (const p of providers) expect(payers.has(p.provider_key), p.provider_key).toBe(false);
    const routedToPayer = await rows("routed_to_address = ANY($1)", [[...payers]]);
    expect(routedToPayer).toEqual([]);
  });
});
