import { createTestDatabase } from "@agent-ledger/db/testing";
import { loadMatchContext } from "@agent-ledger/db";
import {
  ALPHA_USD,
  DEV_PRIVATE_KEYS,
  FEE_MANAGER,
  PATH_USD,
  createDevnetClient,
  createSenderPool,
  sendAdversarialTraffic,
  startAnvil,
  type AdversarialTraffic,
  type AnvilInstance,
} from "@agent-ledger/devnet";
import pg from "pg";
import { getAddress, parseAbiItem, parseEventLogs, stringToHex, type Address, type Hex, type Log } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Abis, Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffMethodologies } from "../src/diff/diffMethodologies.ts";
import { rematch } from "../src/rematch.ts";
import { deployEscrowForTest, settleThroughEscrow } from "./escrow.ts";
import { EXPLORER, indexUntil, loadRegistry } from "./helpers.ts";
import { compareRollups } from "./rollups.ts";

// Methodology v0.2 end to end on a real devnet and PostgreSQL: the adversarial transactions of issue 15 produce
// exactly the rows v0.2 specifies; the ledger totals equal an independent brute-force sum over the chain's
// allowlisted, non-funding, non-routing transfers; rematch v0.2 from raw logs equals indexing v0.2, row for row.

const lower = (a: string) => a.toLowerCase();
const addressOf = (key: Hex) => lower(privateKeyToAccount(key).address);
const funderKey = DEV_PRIVATE_KEYS[0];
const agentKey = DEV_PRIVATE_KEYS[1];
const gatewayKey = DEV_PRIVATE_KEYS[2];
const outsiderKey = DEV_PRIVATE_KEYS[5];
const FUNDER = addressOf(funderKey);
const AGENT = addressOf(agentKey);
const GATEWAY = addressOf(gatewayKey);
const SHOP = addressOf(DEV_PRIVATE_KEYS[4]);
const AGENT_2 = addressOf(DEV_PRIVATE_KEYS[6]);
const RETIRED = addressOf(DEV_PRIVATE_KEYS[7]);
const OUTSIDER = addressOf(outsiderKey);
const PROVIDER = "0x00000000000000000000000000000000000a11ce";
const FP = "0a0b0c0d0e0f10111213";
const gatewayMemo = (nonce: number): Hex => `0xef1ed71201${FP}${"00".repeat(8)}${nonce.toString(16).padStart(14, "0")}0000`;
const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);

function registryDocument(escrow: string) {
  return {
    registry_version: 2,
    network: "devnet",
    tokens: [
      { address: PATH_USD, symbol: "pathUSD", decimals: 6, currency: "USD" },
      { address: ALPHA_USD, symbol: "AlphaUSD", decimals: 6, currency: "USD" },
    ],
    entities: [
      { id: "test-agent", label: "Test agent", category: "agent", track_fees: true, wallets: [AGENT, AGENT_2] },
      { id: "shop-mpp", label: "Shop", category: "commerce", wallets: [SHOP] },
      { id: "tempo-gateway-mpp", label: "Tempo MPP Gateway", category: "gateway", wallets: [GATEWAY] },
      { id: "retired-agent", label: "Retired agent", category: "agent", active: false, wallets: [RETIRED] },
    ],
    address_labels: [
      { address: PROVIDER, label: "Alice's inference", category: "provider" },
      { address: FUNDER, label: "Devnet faucet", category: "faucet" },
    ],
    fingerprint_labels: [{ fingerprint: `0x${FP}`, label: "Inference via gateway", category: "provider", provider_address: PROVIDER }],
    settlement_contracts: [{ address: escrow, label: "Test escrow" }],
  };
}

interface Row {
  id: string;
  agent_id: string;
  kind: string;
  amount_wei: string;
  tx_hash: string;
  log_index: number;
  routed_to_address: string;
  [k: string]: unknown;
}

async function rowsOf(databaseUrl: string, version: string): Promise<Row[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT id::text, ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category, kind,
              amount_wei::text, token_address, tx_hash, log_index, source_block::int, methodology_version, routed_to_address,
              routed_to_label, routed_fingerprint, explorer_url
       FROM agent_events WHERE methodology_version = $1 ORDER BY tx_hash, log_index, agent_id`,
      [version],
    );
    return rows.map((r) => ({ ...r, ts: (r.ts as Date).toISOString() }));
  } finally {
    await c.end();
  }
}

async function ledgerTotals(databaseUrl: string) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const q = async (table: string) =>
      (await c.query(`SELECT coalesce(sum(payments_count), 0)::text AS n, coalesce(sum(amount_sum_wei), 0)::text AS s FROM ${table}`)).rows[0] as {
        n: string;
        s: string;
      };
    const providers = (await c.query("SELECT provider_key, pattern, payments_count::int, amount_sum_wei::text FROM provider_activity_total ORDER BY 1")).rows;
    const byToken = async (table: string) =>
      (await c.query(`SELECT token_address, sum(payments_count)::text AS n, sum(amount_sum_wei)::text AS s FROM ${table} GROUP BY 1 ORDER BY 1`)).rows;
    return {
      hourly: await q("ledger_activity_hourly"),
      daily: await q("ledger_activity_daily"),
      providers,
      byTokenHourly: await byToken("ledger_token_activity_hourly"),
      byTokenDaily: await byToken("ledger_token_activity_daily"),
    };
  } finally {
    await c.end();
  }
}

const summary = (rows: Row[], tx: string) =>
  rows.filter((r) => r.tx_hash === tx && r.kind !== "fee_paid").map((r) => `${r.agent_id}:${r.kind}:${r.amount_wei}:${r.routed_to_address}`);

describe("methodology v0.2 on a devnet", () => {
  let anvil: AnvilInstance;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let escrow: string;
  let adversarial: AdversarialTraffic;
  const normal: Record<"shop" | "gatewayPay" | "settle", string> = { shop: "", gatewayPay: "", settle: "" };

  beforeAll(async () => {
    [anvil, db] = await Promise.all([startAnvil(), createTestDatabase()]);
    escrow = await deployEscrowForTest(anvil.url, DEV_PRIVATE_KEYS[3]);
    await loadRegistry(db.url, registryDocument(escrow));

    const agent = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(agentKey) });
    const send = { nonceKey: 0n } as const;
    normal.shop = (
      await agent.token.transferSync({ token: PATH_USD, to: getAddress(SHOP), amount: 1_500_000n, memo: stringToHex("inv-1", { size: 32 }), ...send })
    ).receipt.transactionHash;
    normal.gatewayPay = (
      await agent.token.transferSync({ token: PATH_USD, to: getAddress(GATEWAY), amount: 1_000_000n, memo: gatewayMemo(1), ...send })
    ).receipt.transactionHash;
    normal.settle = (
      await settleThroughEscrow(anvil.url, gatewayKey, escrow, { provider: PROVIDER, amountIn: 1_000_000n, amountOut: 950_000n })
    ).transactionHash;

    const client = createDevnetClient({ url: anvil.url });
    adversarial = await sendAdversarialTraffic({
      client,
      sender: createSenderPool(client),
      outsiderKey,
      funderKey,
      agentKey,
      agentSecondWallet: AGENT_2 as Address,
      service: SHOP as Address,
      gateway: GATEWAY as Address,
      inactiveWallet: RETIRED as Address,
      escrow: escrow as Address,
    });
  }, 240_000);

  afterAll(async () => {
    await Promise.allSettled([anvil?.stop(), db?.drop()]);
  });

  it("indexing under v0.2 gives exactly the rows v0.2 specifies for every adversarial and normal transaction", async () => {
    const client = createDevnetClient({ url: anvil.url });
    await indexUntil(db.url, anvil.url, await client.getBlockNumber(), { methodologyVersion: "v0.2" });
    const rows = await rowsOf(db.url, "v0.2");
    expect(rows.length).toBeGreaterThan(0);
    const t = adversarial.txs;
    expect(summary(rows, t.nonTokenTransfer)).toEqual([]);
    expect(summary(rows, t.junkTokenMint)).toEqual([]);
    expect(summary(rows, t.junkTokenTransfer)).toEqual([]);
    expect(summary(rows, t.forgedSoloMemo)).toEqual([]);
    expect(summary(rows, t.untrustedSettlement)).toEqual(["shop-mpp:payment_received:40000:"]);
    expect(summary(rows, t.outsiderEscrowCall)).toEqual(["shop-mpp:payment_received:50000:"]);
    expect(summary(rows, t.funding)).toEqual(["test-agent:funding_received:250000000:"]);
    expect(summary(rows, t.sameEntityMove)).toEqual([]);
    expect(summary(rows, t.inactiveEntity)).toEqual(["test-agent:payment_sent:20000:"]);
    expect(summary(rows, normal.shop)).toEqual(["shop-mpp:payment_received:1500000:", "test-agent:payment_sent:1500000:"]);
    expect(summary(rows, normal.gatewayPay)).toEqual([`tempo-gateway-mpp:payment_received:1000000:${PROVIDER}`, `test-agent:payment_sent:1000000:${PROVIDER}`]);
    expect(summary(rows, normal.settle)).toEqual([`tempo-gateway-mpp:settlement_sent:950000:${PROVIDER}`]);
    // fee AMM liquidity added and withdrawn by the agent: transfers to / from the FeeManager, no row but the fee
    expect(summary(rows, t.feeAmmLiquidity)).toEqual([]);
    expect(summary(rows, t.feeAmmWithdrawal)).toEqual([]);
    // the agent tracks fees: one fee per transaction it paid for, nothing else from the FeeManager
    const agentTxs = [normal.shop, normal.gatewayPay, t.sameEntityMove, t.inactiveEntity, t.feeAmmLiquidity, t.feeAmmWithdrawal];
    expect(
      rows
        .filter((r) => r.kind === "fee_paid")
        .map((r) => r.tx_hash)
        .sort(),
    ).toEqual(agentTxs.sort());
    // the fee of the liquidity transaction is its last transfer to the FeeManager, not the 60,000 deposit
    const ammFee = rows.filter((r) => r.tx_hash === t.feeAmmLiquidity && r.kind === "fee_paid");
    expect(ammFee).toHaveLength(1);
    expect(ammFee[0]!.amount_wei).not.toBe("60000");
    expect(rows.every((r) => r.explorer_url === `${EXPLORER}/tx/${r.tx_hash}`)).toBe(true);
  });

  it("the ledger totals equal a brute-force sum over the chain's allowlisted, non-funding, non-routing transfers", async () => {
    const client = createDevnetClient({ url: anvil.url });
    const logs: Log[] = await client.getLogs({ fromBlock: 0n, toBlock: await client.getBlockNumber() });
    const doc = registryDocument(escrow);
    const active = new Map<string, string>();
    for (const e of doc.entities) if (e.active !== false) for (const w of e.wallets) active.set(w, e.id);
    const allow = new Set(doc.tokens.map((t) => lower(t.address)));
    const funding = new Set([FUNDER, "0x0000000000000000000000000000000000000000"]);
    const parsed = parseEventLogs({ abi: [...Abis.tip20, settlementEvent], logs, strict: true });
    const legs = new Set<string>();
    for (const l of parsed) {
      if (l.eventName !== "Settlement" || lower(l.address) !== escrow) continue;
      const a = l.args as { serviceProvider: Address; gateway: Address; amountOut: bigint };
      if (active.get(lower(a.gateway)) !== "tempo-gateway-mpp") continue;
      legs.add(`${l.transactionHash}:${lower(a.gateway)}:${lower(a.serviceProvider)}:${a.amountOut}`);
    }
    let count = 0n;
    let sum = 0n;
    const perToken = new Map<string, { n: bigint; s: bigint }>();
    for (const l of parsed) {
      if (l.eventName !== "Transfer" || !allow.has(lower(l.address))) continue;
      const { from, to, amount } = l.args as { from: Address; to: Address; amount: bigint };
      const f = lower(from),
        t = lower(to);
      if (!active.has(f) && !active.has(t)) continue;
      if (active.has(f) && active.get(f) === active.get(t)) continue;
      if (funding.has(f) || funding.has(t) || f === lower(FEE_MANAGER) || t === lower(FEE_MANAGER)) continue;
      if (legs.has(`${l.transactionHash}:${f}:${t}:${amount}`)) continue;
      count++;
      sum += amount;
      const tk = perToken.get(lower(l.address)) ?? { n: 0n, s: 0n };
      perToken.set(lower(l.address), { n: tk.n + 1n, s: tk.s + amount });
    }
    const totals = await ledgerTotals(db.url);
    expect(totals.hourly).toEqual({ n: count.toString(), s: sum.toString() });
    expect(totals.daily).toEqual({ n: count.toString(), s: sum.toString() });
    const expectedByToken = [...perToken]
      .map(([token, t]) => ({ token_address: token, n: t.n.toString(), s: t.s.toString() }))
      .sort((a, b) => (a.token_address < b.token_address ? -1 : 1));
    expect(totals.byTokenHourly).toEqual(expectedByToken);
    expect(totals.byTokenDaily).toEqual(expectedByToken);
    expect(count).toBe(5n); // shop, gateway, untrusted-settlement and escrow-call payments, inactive entity
    // one provider, known by address and by fingerprint: counted once, with what reached it
    expect(totals.providers).toEqual([{ provider_key: PROVIDER, pattern: "address", payments_count: 1, amount_sum_wei: "950000" }]);
  });

  it("rematch v0.2 from raw logs equals indexing v0.2, row for row, and rebuilds the same rollups", async () => {
    const indexed = await rowsOf(db.url, "v0.2");
    const rollups = await ledgerTotals(db.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const context = await loadMatchContext(client, EXPLORER);
      const same = await rematch(client, { version: "v0.2", maintainRollups: true, context });
      expect(same).toMatchObject({ inserted: 0, updated: 0, deleted: 0, unchanged: indexed.length });
      await client.query("DELETE FROM agent_events WHERE methodology_version = 'v0.2'");
      const again = await rematch(client, { version: "v0.2", maintainRollups: true, context });
      expect(again).toMatchObject({ inserted: indexed.length, updated: 0, deleted: 0 });
      const strip = (rows: Row[]) => rows.map(({ id: _id, ...rest }) => rest);
      expect(strip(await rowsOf(db.url, "v0.2"))).toEqual(strip(indexed));
      expect(await ledgerTotals(db.url)).toEqual(rollups);

      // v0.1 rows of the same raw logs live beside them (rollups stay the live version's)
      const v01 = await rematch(client, { version: "v0.1", maintainRollups: false, context });
      expect(v01.inserted).toBeGreaterThan(indexed.length);
      const old = await rowsOf(db.url, "v0.1");
      expect(summary(old, adversarial.txs.nonTokenTransfer)).toEqual([`test-agent:payment_received:${10n ** 30n}:`]);
      expect(summary(old, adversarial.txs.outsiderEscrowCall)).toContain(`shop-mpp:payment_received:50000:${OUTSIDER}`);
      // v0.1: the liquidity withdrawal was a payment received, the deposit a fee
      const withdrawn = summary(old, adversarial.txs.feeAmmWithdrawal).map((s) => s.split(":")[1]);
      expect(withdrawn.length).toBeGreaterThan(0);
      expect(new Set(withdrawn)).toEqual(new Set(["payment_received"])); // the pool's two tokens paid back to the agent
      expect(old.filter((r) => r.tx_hash === adversarial.txs.feeAmmLiquidity && r.kind === "fee_paid").map((r) => r.amount_wei)).toContain("60000");
      expect(await ledgerTotals(db.url)).toEqual(rollups);

      // the operator's report before switching: what stops counting, and why
      const report = await diffMethodologies(client, { from: "v0.1", to: "v0.2", context });
      expect(Object.keys(report.why.no_longer_activity).sort()).toEqual(["fee_amm", "funding", "not_allowlisted_token", "settlement_leg"]);
      expect(report.why.no_longer_activity.fee_amm!.payments).toBe(withdrawn.length); // the liquidity withdrawal
      expect(report.why.no_longer_activity.not_allowlisted_token!.payments).toBe(4); // emitter Transfer and memo, junk mint and transfer
      expect(report.why.rows_rerouted).toBeGreaterThan(0);
      expect(report.global.after).toMatchObject({ payments: 5, volume_wei: rollups.daily.s });
      expect(BigInt(report.global.before.volume_wei)).toBeGreaterThan(10n ** 30n);
      expect(report.entities["test-agent"]!.after.received_count).toBe(0);
    } finally {
      await client.end();
    }
  });

  it("the rollups hold one version: the indexer refuses another until rematch --rebuild-rollups switches them", async () => {
    const tip = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    await expect(indexUntil(db.url, anvil.url, tip, { methodologyVersion: "v0.1" })).rejects.toThrow(/rollup tables hold methodology v0.2, not v0.1/);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const context = await loadMatchContext(client, EXPLORER);
      await expect(rematch(client, { version: "v0.1", maintainRollups: true, context })).rejects.toThrow(/hold methodology v0.2/);
      await rematch(client, { version: "v0.1", maintainRollups: true, rebuildAllRollups: true, context });
      for (const [name, { stored, brute }] of Object.entries(await compareRollups(db.url, "v0.1"))) expect(stored, name).toEqual(brute);
      await indexUntil(db.url, anvil.url, tip, { methodologyVersion: "v0.1" }); // accepted now
      await expect(indexUntil(db.url, anvil.url, tip, { methodologyVersion: "v0.2" })).rejects.toThrow(/hold methodology v0.1, not v0.2/);
    } finally {
      await client.end();
    }
  });
});
