import { computeRollups, type EventDraft } from "@agent-ledger/core";
import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareBatch, writeBatch } from "../src/store/writeBatch.ts";

// Methodology v0.3 rule 6 (docs/methodology.md): the indexer's SQL provider rollup (rollupSql.ts, CTE `prv`) counts
// exactly what core's computeRollups counts — every routed payment or settlement leg, keyed by address else fingerprint.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

const tx = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const PAYEE = "0x00000000000000000000000000000000000b0b00";
const FP = "0x0a0b0c0d0e0f10111213";
const CHANNEL = `0x${"c1".repeat(32)}`;
const row = (over: Partial<EventDraft>): EventDraft => ({
  ts: new Date("2026-11-22T10:15:00Z"),
  agentId: "agent-a",
  agentLabel: "A",
  agentCategory: "agent",
  counterpartyAddress: "0x" + "b".repeat(40),
  counterpartyLabel: "",
  counterpartyCategory: null,
  kind: "payment_sent",
  amountWei: 5n,
  tokenAddress: "0x20c000000000000000000000b9537d11c60e8b50",
  txHash: tx(1),
  logIndex: 0,
  sourceBlock: 1n,
  methodologyVersion: "v0.3",
  routedToAddress: "",
  routedToLabel: "",
  routedFingerprint: null,
  explorerUrl: "",
  attribution: null,
  clientFingerprint: null,
  channelId: null,
  ...over,
});

describe("v0.3 provider rollups: SQL and core agree", () => {
  it("a charge and its split (fingerprint), session payouts incl. the escrow's view (address); not funding, unrouted or fees", async () => {
    const rows = [
      row({ txHash: tx(1), logIndex: 0, kind: "payment_sent", amountWei: 100n, routedFingerprint: FP, attribution: "server_id_host" }),
      row({ txHash: tx(1), logIndex: 0, agentId: "fal-mpp", kind: "payment_received", amountWei: 100n, routedFingerprint: FP, attribution: "server_id_host" }),
      row({ txHash: tx(1), logIndex: 2, kind: "payment_sent", amountWei: 10n, routedFingerprint: FP, attribution: "server_id_host" }),
      row({ txHash: tx(2), logIndex: 1, kind: "payment_sent", amountWei: 30n, routedToAddress: PAYEE, attribution: "session_escrow", channelId: CHANNEL }),
      row({
        txHash: tx(3),
        logIndex: 1,
        agentId: "escrow",
        kind: "settlement_sent",
        amountWei: 20n,
        routedToAddress: PAYEE,
        attribution: "session_escrow",
        channelId: CHANNEL,
      }),
      row({ txHash: tx(3), logIndex: 0, kind: "funding_sent", amountWei: 1_000n, channelId: CHANNEL }),
      row({ txHash: tx(3), logIndex: 3, kind: "payment_sent", amountWei: 4n, attribution: "recipient_wallet" }),
      row({ txHash: tx(3), logIndex: 4, kind: "fee_paid", amountWei: 1n }),
    ];
    await writeBatch(client, {
      streamId: "v03-providers",
      chainId: 31337,
      startBlock: 1n,
      previousBlock: 0n,
      toBlock: 1n,
      toBlockHash: null,
      prepared: prepareBatch([], rows),
    });
    const stored = (
      await client.query(
        "SELECT provider_key, pattern, payments_count::text AS n, amount_sum_wei::text AS s FROM provider_activity_total ORDER BY provider_key",
      )
    ).rows;
    const core = computeRollups(rows)
      .providerTotals.map((p) => ({ provider_key: p.providerKey, pattern: p.pattern, n: String(p.paymentsCount), s: p.amountSumWei.toString() }))
      .sort((a, b) => (a.provider_key < b.provider_key ? -1 : 1));
    expect(stored).toEqual(core);
    expect(core).toEqual([
      { provider_key: PAYEE, pattern: "address", n: "2", s: "50" },
      { provider_key: FP, pattern: "fingerprint", n: "2", s: "110" },
    ]);
  });
});
