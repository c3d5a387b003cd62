import { createTestDatabase } from "@agent-ledger/db/testing";
import { DEV_PRIVATE_KEYS, FEE_MANAGER, PATH_USD, ALPHA_USD, createDevnetClient, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { getAddress, parseAbiItem, parseEventLogs, stringToHex, type Address, type Hex, type Log } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Abis, Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rematch } from "../src/rematch.ts";
import { EXPLORER, indexUntil, loadRegistry } from "./helpers.ts";
import { loadMatchContext } from "@agent-ledger/db";
import { deployEscrowForTest, settleThroughEscrow } from "./escrow.ts";
import { compareRollups } from "./rollups.ts";

// End to end against a real devnet and PostgreSQL: make real payments, index them, and compare every
// agent_events row field by field with an independent decode of the chain's logs (viem's ABI decoder).

const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);
const lower = (a: string) => a.toLowerCase();
const agentKey = DEV_PRIVATE_KEYS[1];
const gatewayKey = DEV_PRIVATE_KEYS[2];
const strangerKey = DEV_PRIVATE_KEYS[5];
const AGENT = lower(privateKeyToAccount(agentKey).address);
const GATEWAY = lower(privateKeyToAccount(gatewayKey).address);
const SHOP = lower(privateKeyToAccount(DEV_PRIVATE_KEYS[4]).address);
const PROVIDER = "0x00000000000000000000000000000000000a11ce";
const FP_LABELLED = "0a0b0c0d0e0f10111213";
const FP_UNLABELLED = "99999999999999999999";
const gatewayMemo = (fp: string, nonce: number): Hex => `0xef1ed71201${fp}${"00".repeat(8)}${nonce.toString(16).padStart(14, "0")}0000`;

function registryDocument(escrow: string, providerLabel = "Alice's inference") {
  return {
    registry_version: 1,
    network: "devnet",
    entities: [
      { id: "test-agent", label: "Test agent", category: "agent", track_fees: true, wallets: [AGENT] },
      { id: "shop-mpp", label: "Shop", category: "commerce", wallets: [SHOP] },
      { id: "tempo-gateway-mpp", label: "Tempo MPP Gateway", category: "gateway", wallets: [GATEWAY] },
    ],
    address_labels: [{ address: PROVIDER, label: providerLabel, category: "provider" }],
    fingerprint_labels: [{ fingerprint: `0x${FP_LABELLED}`, label: "Search via gateway", category: "provider" }],
    settlement_contracts: [{ address: escrow, label: "Test escrow" }],
  };
}

interface Entity {
  id: string;
  label: string;
  category: string;
  trackFees: boolean;
}

/** The spec's rules applied to viem-decoded logs, written independently of the matcher. */
function expectedRows(logs: Log[], doc: ReturnType<typeof registryDocument>) {
  const entities = new Map<string, Entity>();
  for (const e of doc.entities)
    for (const w of e.wallets) entities.set(w, { id: e.id, label: e.label, category: e.category, trackFees: e.track_fees ?? false });
  const labels = new Map(doc.address_labels.map((l) => [l.address, l]));
  const fpLabels = new Map(doc.fingerprint_labels.map((l) => [l.fingerprint, l]));
  const trusted = new Set(doc.settlement_contracts.map((c) => c.address));
  const parsed = parseEventLogs({ abi: [...Abis.tip20, settlementEvent], logs, strict: true });
  const byTx = new Map<string, typeof parsed>();
  for (const p of parsed) byTx.set(p.transactionHash!, [...(byTx.get(p.transactionHash!) ?? []), p]);
  const rows: Record<string, unknown>[] = [];
  const labelOf = (a: string) => entities.get(a) ?? labels.get(a);
  for (const [tx, txLogs] of byTx) {
    const settlement = txLogs.find((l) => l.eventName === "Settlement" && trusted.has(lower(l.address)));
    for (const [i, l] of txLogs.entries()) {
      if (l.eventName !== "Transfer") continue;
      const args = l.args as { from: Address; to: Address; amount: bigint };
      const from = lower(args.from),
        to = lower(args.to);
      const next = txLogs[i + 1];
      const memo = next?.eventName === "TransferWithMemo" && lower((next.args as { from: Address }).from) === from ? (next.args as { memo: Hex }).memo : null;
      const fp = memo && memo.startsWith("0xef1ed71201") ? `0x${memo.slice(12, 32)}` : null;
      const isFee = to === lower(FEE_MANAGER);
      const sender = entities.get(from),
        recipient = entities.get(to);
      const routedAddress = !isFee && settlement ? lower((settlement.args as { serviceProvider: Address }).serviceProvider) : "";
      const routedLabel = isFee ? "" : routedAddress ? (labelOf(routedAddress)?.label ?? "") : fp ? (fpLabels.get(fp)?.label ?? "") : "";
      const common = {
        ts: new Date(Number((l as unknown as { blockTimestamp: bigint }).blockTimestamp) * 1000).toISOString(),
        amount_wei: args.amount.toString(),
        token_address: lower(l.address),
        tx_hash: tx,
        log_index: l.logIndex!,
        source_block: Number(l.blockNumber),
        methodology_version: "v0.1",
        routed_to_address: routedAddress,
        routed_to_label: routedLabel,
        routed_fingerprint: isFee ? null : fp,
        explorer_url: `${EXPLORER}/tx/${tx}`,
        attribution: null,
        client_fingerprint: null,
        channel_id: null, // methodology v0.3 only
      };
      if (sender && (!isFee || sender.trackFees)) {
        const cp = labelOf(to);
        rows.push({
          agent_id: sender.id,
          agent_label: sender.label,
          agent_category: sender.category,
          counterparty_address: to,
          counterparty_label: cp?.label ?? "",
          counterparty_category: cp?.category ?? null,
          kind: isFee ? "fee_paid" : "payment_sent",
          ...common,
        });
      }
      if (recipient && !isFee) {
        const cp = labelOf(from);
        rows.push({
          agent_id: recipient.id,
          agent_label: recipient.label,
          agent_category: recipient.category,
          counterparty_address: from,
          counterparty_label: cp?.label ?? "",
          counterparty_category: cp?.category ?? null,
          kind: "payment_received",
          ...common,
        });
      }
    }
  }
  const key = (r: Record<string, unknown>) => `${r.tx_hash}:${String(r.log_index).padStart(6, "0")}:${r.agent_id}`;
  return rows.sort((a, b) => key(a).localeCompare(key(b)));
}

async function expectRollupsConsistent(databaseUrl: string) {
  const rollups = await compareRollups(databaseUrl);
  for (const [name, { stored, brute }] of Object.entries(rollups)) {
    expect(stored, name).toEqual(brute);
    expect(stored.length, name).toBeGreaterThan(0);
  }
}

async function storedRows(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`
      SELECT id::text, ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category, kind,
             amount_wei::text, token_address, tx_hash, log_index, source_block::int, methodology_version, routed_to_address,
             routed_to_label, routed_fingerprint, explorer_url, attribution, client_fingerprint, channel_id
      FROM agent_events ORDER BY tx_hash, log_index, agent_id`);
    return rows.map((r) => ({ ...r, ts: (r.ts as Date).toISOString() }));
  } finally {
    await client.end();
  }
}

describe("indexer against a devnet", () => {
  let anvil: AnvilInstance;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let doc: ReturnType<typeof registryDocument>;
  let escrow: string;

  beforeAll(async () => {
    [anvil, db] = await Promise.all([startAnvil(), createTestDatabase()]);
    escrow = await deployEscrowForTest(anvil.url, DEV_PRIVATE_KEYS[3]);
    doc = registryDocument(escrow);
    await loadRegistry(db.url, doc);

    const agent = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(agentKey) });
    const stranger = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(strangerKey) });
    const send = { nonceKey: 0n } as const;
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(SHOP), amount: 1_500_000n, memo: stringToHex("inv-1", { size: 32 }), ...send });
    await agent.token.transferSync({ token: ALPHA_USD, to: getAddress(SHOP), amount: 250_000n, ...send });
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(GATEWAY), amount: 700_000n, memo: gatewayMemo(FP_LABELLED, 1), ...send });
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(GATEWAY), amount: 800_000n, memo: gatewayMemo(FP_LABELLED, 2), ...send });
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(GATEWAY), amount: 900_000n, memo: gatewayMemo(FP_UNLABELLED, 3), ...send });
    await settleThroughEscrow(anvil.url, gatewayKey, escrow, { provider: PROVIDER, amountIn: 1_000_000n, amountOut: 950_000n });
    await stranger.token.transferSync({ token: PATH_USD, to: getAddress(PROVIDER), amount: 5n, ...send }); // nobody watched
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([anvil?.stop(), db?.drop()]);
  });

  async function head(): Promise<bigint> {
    return createDevnetClient({ url: anvil.url }).getBlockNumber();
  }
  async function chainLogs(to: bigint): Promise<Log[]> {
    return createDevnetClient({ url: anvil.url }).getLogs({ fromBlock: 0n, toBlock: to });
  }

  it("stores exactly the rows an independent decode of the chain expects, field by field", async () => {
    const tip = await head();
    const notifications: string[] = [];
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on("notification", (n) => notifications.push(n.payload ?? ""));
    await listener.query("LISTEN agent_events");

    await indexUntil(db.url, anvil.url, tip);

    const expected = expectedRows(await chainLogs(tip), doc);
    const stored = await storedRows(db.url);
    expect(stored.map(({ id: _id, ...rest }) => rest)).toEqual(expected);
    // The scenario covers every rule at least once.
    const kinds = new Set(stored.map((r) => r.kind));
    expect(kinds).toEqual(new Set(["payment_sent", "payment_received", "fee_paid"]));
    expect(stored.some((r) => r.routed_to_address === PROVIDER && r.routed_to_label === "Alice's inference")).toBe(true);
    expect(stored.filter((r) => r.routed_fingerprint === `0x${FP_LABELLED}` && r.agent_id === "tempo-gateway-mpp")).toHaveLength(2);
    expect(stored.some((r) => r.routed_fingerprint === `0x${FP_UNLABELLED}` && r.routed_to_label === "")).toBe(true);
    expect(stored.some((r) => r.counterparty_address === PROVIDER && r.agent_id !== "tempo-gateway-mpp")).toBe(false);

    await expectRollupsConsistent(db.url);

    // Each committed batch announced its rows; the announced id ranges cover every row exactly once.
    await new Promise((r) => setTimeout(r, 200));
    await listener.end();
    const announced = notifications.map((p) => JSON.parse(p) as { first_id: string; last_id: string; count: number });
    expect(announced.reduce((n, a) => n + a.count, 0)).toBe(stored.length);
    expect(BigInt(announced.at(-1)!.last_id)).toBe(BigInt(stored.map((r) => BigInt(r.id)).reduce((a, b) => (a > b ? a : b))));
  });

  it("resumes from its checkpoint: a second run adds only what is new", async () => {
    const before = await storedRows(db.url);
    const tip = await head();
    await indexUntil(db.url, anvil.url, tip);
    expect(await storedRows(db.url)).toEqual(before);

    const agent = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(agentKey) });
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(SHOP), amount: 42n, nonceKey: 0n });
    const tip2 = await head();
    await indexUntil(db.url, anvil.url, tip2);
    const after = await storedRows(db.url);
    for (const row of before) expect(after.find((r) => r.id === row.id)).toEqual(row);
    expect(after.map(({ id: _id, ...rest }) => rest)).toEqual(expectedRows(await chainLogs(tip2), doc));
    expect(after.length - before.length).toBe(3); // payment_sent + payment_received + fee_paid
    await expectRollupsConsistent(db.url);
  });

  it("refuses to extend a ledger whose newest stored block the node does not have (another chain)", async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const {
        rows: [newest],
      } = await admin.query("SELECT block_number::text AS n, block_hash FROM raw_logs ORDER BY block_number DESC LIMIT 1");
      const forged = `0x${"ab".repeat(32)}`;
      await admin.query("UPDATE raw_logs SET block_hash = $1 WHERE block_number = $2", [forged, newest.n]);
      try {
        await expect(indexUntil(db.url, anvil.url, await head())).rejects.toThrow(`does not have block ${newest.n} with hash ${forged}`);
      } finally {
        await admin.query("UPDATE raw_logs SET block_hash = $1 WHERE block_number = $2", [newest.block_hash, newest.n]);
      }
      await indexUntil(db.url, anvil.url, await head()); // the true hash again: accepted
    } finally {
      await admin.end();
    }
  });

  it("rematch re-derives the same rows (same ids) from raw logs, and applies label changes in place", async () => {
    const before = await storedRows(db.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const same = await rematch(client, { version: "v0.1", maintainRollups: true, context: await loadMatchContext(client, EXPLORER) });
      expect(same).toMatchObject({ inserted: 0, updated: 0, deleted: 0, unchanged: before.length, rows: before.length });
      expect(await storedRows(db.url)).toEqual(before);

      // The v0.3 fields are compared too: rows whose attribution, client or channel differ from what the rules derive
      // (here: set where v0.1 derives none) are updated in place, each field on its own; the rest stay untouched.
      const ids = before.map((r) => r.id);
      await client.query("UPDATE agent_events SET attribution = 'recipient_wallet' WHERE id = $1", [ids[0]]);
      await client.query("UPDATE agent_events SET client_fingerprint = '0x0102030405060708090a' WHERE id = $1", [ids[1]]);
      await client.query(`UPDATE agent_events SET channel_id = '0x${"ab".repeat(32)}' WHERE id = $1`, [ids[2]]);
      const reset = await rematch(client, { version: "v0.1", maintainRollups: true, context: await loadMatchContext(client, EXPLORER) });
      expect(reset).toMatchObject({ inserted: 0, updated: 3, deleted: 0, unchanged: before.length - 3 });
      expect(await storedRows(db.url)).toEqual(before);

      // Lose some rows, relabel the provider: rematch restores and updates from raw logs alone.
      await client.query("DELETE FROM agent_events WHERE kind = 'fee_paid'");
      await loadRegistry(db.url, registryDocument(escrow, "Alice's inference v2"));
      const changed = await rematch(client, { version: "v0.1", maintainRollups: true, context: await loadMatchContext(client, EXPLORER) });
      const feeRows = before.filter((r) => r.kind === "fee_paid").length;
      const relabelled = before.filter(
        (r) => r.kind !== "fee_paid" && (r.routed_to_label === "Alice's inference" || r.counterparty_label === "Alice's inference"),
      ).length;
      expect(changed).toMatchObject({ inserted: feeRows, updated: relabelled, deleted: 0 });
      const after = await storedRows(db.url);
      expect(after.filter((r) => r.kind !== "fee_paid").map((r) => r.id)).toEqual(before.filter((r) => r.kind !== "fee_paid").map((r) => r.id));
      expect(after.some((r) => r.routed_to_label === "Alice's inference v2")).toBe(true);
      expect(after.some((r) => r.routed_to_label === "Alice's inference")).toBe(false);
      await expectRollupsConsistent(db.url); // fee rows came back: the rebuilt rollups count them again
    } finally {
      await client.end();
    }
  });
});
