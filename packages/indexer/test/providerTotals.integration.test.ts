import type { EventDraft } from "@agent-ledger/core";
import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildRollups } from "../src/store/rebuildRollups.ts";
import { prepareBatch, writeBatch } from "../src/store/writeBatch.ts";
import { compareRollups } from "./rollups.ts";

// provider_activity_total (one all-time row per gateway provider) is kept by the indexer's batch write and by the
// rollup rebuild after a rematch. Rows are written here through the real writeBatch in several batches whose times
// go back and forth (so first/last seen must move both ways), then compared with agent_events by brute force.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 9, 1, 0, 0, 0);
const GATEWAY = { id: "tempo-gateway-mpp", label: "Tempo MPP Gateway", category: "gateway" };
const AGENT = { id: "agent-a", label: "Agent A", category: "agent" };
const ADDR = ["0x00000000000000000000000000000000000a11ce", "0x00000000000000000000000000000000000b0b00"];
const FP = ["0x0a0b0c0d0e0f10111213", "0x99999999999999999999"];
const BIG = 2n ** 70n + 3n; // beyond int64: sums must stay exact

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let block = 0n;
let tx = 0;

function row(over: Partial<EventDraft> & Pick<EventDraft, "ts" | "kind" | "amountWei" | "txHash" | "logIndex">): EventDraft {
  return {
    agentId: GATEWAY.id,
    agentLabel: GATEWAY.label,
    agentCategory: GATEWAY.category,
    counterpartyAddress: "0x000000000000000000000000000000000000c0de",
    counterpartyLabel: "",
    counterpartyCategory: null,
    tokenAddress: "0x20c0000000000000000000000000000000000000",
    sourceBlock: block,
    methodologyVersion: "v0.1",
    routedToAddress: "",
    routedToLabel: "",
    routedFingerprint: null,
    explorerUrl: "https://explore.test/tx/x",
    attribution: null,
    clientFingerprint: null,
    channelId: null,
    ...over,
  };
}

/** One payment at `atMs` routed to `key` (an address = Pattern A, else a fingerprint = Pattern B), from both sides when `twoSided`. */
function routedPayment(atMs: number, key: string, amount: bigint, opts: { twoSided?: boolean; fee?: boolean } = {}): EventDraft[] {
  const txHash = `0x${(++tx).toString(16).padStart(64, "0")}`;
  const routing = key.length === 42 ? { routedToAddress: key, routedToLabel: "" } : { routedFingerprint: key };
  const ts = new Date(atMs);
  const rows = [row({ ts, kind: "payment_received", amountWei: amount, txHash, logIndex: 0, ...routing })];
  if (opts.twoSided)
    rows.push(
      row({
        ts,
        kind: "payment_sent",
        amountWei: amount,
        txHash,
        logIndex: 0,
        agentId: AGENT.id,
        agentLabel: AGENT.label,
        agentCategory: AGENT.category,
        ...routing,
      }),
    );
  if (opts.fee) rows.push(row({ ts, kind: "fee_paid", amountWei: 7n, txHash, logIndex: 1, ...routing }));
  return rows;
}

async function write(rows: EventDraft[]) {
  const previousBlock = block;
  block += 1n;
  await writeBatch(client, {
    streamId: "provider-totals-test",
    chainId: 31337,
    startBlock: 1n,
    previousBlock,
    toBlock: block,
    toBlockHash: null,
    prepared: prepareBatch(
      [],
      rows.map((r) => ({ ...r, sourceBlock: block })),
    ),
  });
}

async function expectTotalsMatchRows() {
  const rollups = await compareRollups(db.url);
  for (const [name, { stored, brute }] of Object.entries(rollups)) expect(stored, name).toEqual(brute);
  return rollups.provider_total!.stored.map(
    (s) => JSON.parse(s) as { provider_key: string; payments_count: number; amount_sum_wei: string; first_seen: string; last_seen: string },
  );
}

async function rebuild(fromMs: number, toMs: number) {
  await client.query("BEGIN");
  await rebuildRollups(client, "v0.1", new Date(fromMs), new Date(toMs));
  await client.query("COMMIT");
}

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe("provider_activity_total", () => {
  it("batch writes accumulate count, exact sum and first/last hour per provider, in any time order", async () => {
    await write([...routedPayment(T0 + 10 * DAY + 5 * HOUR + 59_000, ADDR[0]!, BIG), ...routedPayment(T0 + 10 * DAY + 6 * HOUR, FP[0]!, 1n, { fee: true })]);
    // Earlier in time than the first batch: first_seen moves back. A two-sided payment counts once.
    await write([...routedPayment(T0 + 2 * DAY + 30 * 60_000, ADDR[0]!, BIG, { twoSided: true }), ...routedPayment(T0 + 3 * DAY, FP[1]!, 500n)]);
    // Later: last_seen moves forward; same provider twice in one batch; an unrouted payment is no provider's.
    await write([
      ...routedPayment(T0 + 20 * DAY + 23 * HOUR + 1, ADDR[0]!, 1n),
      ...routedPayment(T0 + 20 * DAY + 23 * HOUR + 2, ADDR[0]!, 2n),
      ...routedPayment(T0 + 15 * DAY, ADDR[1]!, 10n),
      row({ ts: new Date(T0 + 15 * DAY), kind: "payment_received", amountWei: 99n, txHash: `0x${"f".repeat(64)}`, logIndex: 0 }),
    ]);
    // Between the two: neither bound moves.
    await write(routedPayment(T0 + 12 * DAY, ADDR[0]!, 3n));

    const totals = await expectTotalsMatchRows();
    expect(totals.find((t) => t.provider_key === ADDR[0])).toEqual({
      provider_key: ADDR[0],
      pattern: "address",
      payments_count: 5,
      amount_sum_wei: (2n * BIG + 6n).toString(),
      first_seen: new Date(T0 + 2 * DAY).toISOString(),
      last_seen: new Date(T0 + 20 * DAY + 23 * HOUR).toISOString(),
    });
    expect(totals.find((t) => t.provider_key === FP[0])).toMatchObject({ pattern: "fingerprint", payments_count: 1, amount_sum_wei: "1" });
    expect(totals.map((t) => t.provider_key).sort()).toEqual([...ADDR, ...FP].sort());
  });

  it("the rebuild after a rematch recomputes the providers of the rebuilt days and drops those left without payments", async () => {
    // What a rematch can do to rows: remove all of FP[1]'s (day 3) and one of ADDR[0]'s (day 2, its first), add one to ADDR[1].
    await client.query("DELETE FROM agent_events WHERE routed_fingerprint = $1", [FP[1]]);
    await client.query("DELETE FROM agent_events WHERE routed_to_address = $1 AND ts < $2", [ADDR[0], new Date(T0 + 3 * DAY)]);
    await client.query(
      `INSERT INTO agent_events (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, kind, amount_wei,
         token_address, tx_hash, log_index, source_block, methodology_version, routed_to_address, routed_to_label, explorer_url)
       VALUES ($1, 'tempo-gateway-mpp', 'Tempo MPP Gateway', 'gateway', '0x000000000000000000000000000000000000c0de', '', 'payment_received', 40,
         '0x20c0000000000000000000000000000000000000', $2, 0, 1, 'v0.1', $3, '', 'https://explore.test/tx/x')`,
      [new Date(T0 + 2 * DAY + 4 * HOUR), `0x${"e".repeat(64)}`, ADDR[1]],
    );
    await rebuild(T0 + 2 * DAY, T0 + 3 * DAY + HOUR);

    const totals = await expectTotalsMatchRows();
    expect(totals.map((t) => t.provider_key).sort()).toEqual([ADDR[0], ADDR[1], FP[0]].sort());
    expect(totals.find((t) => t.provider_key === ADDR[0])).toMatchObject({
      payments_count: 4,
      amount_sum_wei: (BIG + 6n).toString(),
      first_seen: new Date(T0 + 10 * DAY + 5 * HOUR).toISOString(),
    });
    expect(totals.find((t) => t.provider_key === ADDR[1])).toMatchObject({
      payments_count: 2,
      amount_sum_wei: "50",
      first_seen: new Date(T0 + 2 * DAY + 4 * HOUR).toISOString(),
      last_seen: new Date(T0 + 15 * DAY).toISOString(),
    });
  });

  it("a rebuild of days without changes leaves every total as it was", async () => {
    const before = await expectTotalsMatchRows();
    await rebuild(T0 + 10 * DAY, T0 + 10 * DAY);
    await rebuild(T0 - 30 * DAY, T0 - 29 * DAY);
    expect(await expectTotalsMatchRows()).toEqual(before);
  });
});
