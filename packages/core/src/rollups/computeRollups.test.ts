import { describe, expect, it } from "vitest";
import type { EventDraft } from "../matcher/types.ts";
import { computeRollups } from "./computeRollups.ts";

const BIG = 2n ** 70n + 1n; // beyond a double's exact range
const TX1 = `0x${"1".repeat(64)}`;
const TX2 = `0x${"2".repeat(64)}`;
const PROVIDER = "0x00000000000000000000000000000000000a11ce";

function row(over: Partial<EventDraft>): EventDraft {
  return {
    ts: new Date("2026-11-22T10:15:00Z"),
    agentId: "agent-a",
    agentLabel: "A",
    agentCategory: "c",
    counterpartyAddress: "0x" + "b".repeat(40),
    counterpartyLabel: "",
    counterpartyCategory: null,
    kind: "payment_sent",
    amountWei: 5n,
    tokenAddress: "0x" + "2".repeat(40),
    txHash: TX1,
    logIndex: 0,
    sourceBlock: 1n,
    methodologyVersion: "v0.1",
    routedToAddress: "",
    routedToLabel: "",
    routedFingerprint: null,
    explorerUrl: "",
    attribution: null,
    clientFingerprint: null,
    channelId: null,
    ...over,
  };
}

describe("computeRollups", () => {
  it("counts every row per entity, each payment once for the ledger, fees only for their entity", () => {
    const rows = [
      row({ agentId: "agent-a", kind: "payment_sent", amountWei: BIG }),
      row({ agentId: "shop-mpp", kind: "payment_received", amountWei: BIG }), // same payment, other side
      row({ agentId: "agent-a", kind: "fee_paid", amountWei: 7n, logIndex: 2 }),
    ];
    const r = computeRollups(rows);
    expect(r.hourly.entities).toEqual([
      {
        entityId: "agent-a",
        bucket: new Date("2026-11-22T10:00:00Z"),
        sentCount: 1,
        sentSumWei: BIG,
        receivedCount: 0,
        receivedSumWei: 0n,
        feeCount: 1,
        feeSumWei: 7n,
      },
      {
        entityId: "shop-mpp",
        bucket: new Date("2026-11-22T10:00:00Z"),
        sentCount: 0,
        sentSumWei: 0n,
        receivedCount: 1,
        receivedSumWei: BIG,
        feeCount: 0,
        feeSumWei: 0n,
      },
    ]);
    expect(r.daily.entities.map((e) => e.bucket)).toEqual([new Date("2026-11-22T00:00:00Z"), new Date("2026-11-22T00:00:00Z")]);
    expect(r.hourly.ledger).toEqual([{ bucket: new Date("2026-11-22T10:00:00Z"), paymentsCount: 1, amountSumWei: BIG }]);
    expect(r.entityTotals).toEqual([
      { entityId: "agent-a", sentCount: 1, sentSumWei: BIG, receivedCount: 0, receivedSumWei: 0n, feeCount: 1, feeSumWei: 7n },
      { entityId: "shop-mpp", sentCount: 0, sentSumWei: 0n, receivedCount: 1, receivedSumWei: BIG, feeCount: 0, feeSumWei: 0n },
    ]);
    expect(r.daily.ledger).toEqual([{ bucket: new Date("2026-11-22T00:00:00Z"), paymentsCount: 1, amountSumWei: BIG }]);
    expect(r.hourly.providers).toEqual([]);
    expect(r.providerTotals).toEqual([]);
  });

  it("splits hours and days at UTC boundaries", () => {
    const rows = [row({ ts: new Date("2026-11-22T23:59:59Z"), txHash: TX1 }), row({ ts: new Date("2026-11-23T00:00:00Z"), txHash: TX2 })];
    const r = computeRollups(rows);
    expect(r.hourly.ledger.map((l) => l.bucket.toISOString())).toEqual(["2026-11-22T23:00:00.000Z", "2026-11-23T00:00:00.000Z"]);
    expect(r.daily.ledger.map((l) => l.bucket.toISOString())).toEqual(["2026-11-22T00:00:00.000Z", "2026-11-23T00:00:00.000Z"]);
    expect(r.hourly.entities).toHaveLength(2);
    expect(r.daily.entities).toHaveLength(2);
    expect(r.entityTotals).toEqual([{ entityId: "agent-a", sentCount: 2, sentSumWei: 10n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n }]);
  });

  it("keys routed payments by provider address (Pattern A) or memo fingerprint (Pattern B), with all-time totals", () => {
    const rows = [
      row({ txHash: TX1, routedToAddress: PROVIDER, amountWei: 10n, ts: new Date("2026-11-22T08:30:00Z") }),
      row({ txHash: TX1, agentId: "gw-mpp", kind: "payment_received", routedToAddress: PROVIDER, amountWei: 10n, ts: new Date("2026-11-22T08:30:00Z") }),
      row({ txHash: TX2, routedToAddress: PROVIDER, amountWei: 20n, ts: new Date("2026-11-22T11:05:00Z") }),
      row({ txHash: TX2, logIndex: 5, routedFingerprint: "0a0b0c0d0e0f10111213", amountWei: 3n }),
      row({ txHash: TX2, logIndex: 6, kind: "fee_paid", routedFingerprint: "0a0b0c0d0e0f10111213", amountWei: 1n }), // fees are not payments
    ];
    const r = computeRollups(rows);
    expect(r.hourly.providers).toEqual([
      { providerKey: PROVIDER, bucket: new Date("2026-11-22T08:00:00Z"), pattern: "address", paymentsCount: 1, amountSumWei: 10n },
      { providerKey: PROVIDER, bucket: new Date("2026-11-22T11:00:00Z"), pattern: "address", paymentsCount: 1, amountSumWei: 20n },
      { providerKey: "0a0b0c0d0e0f10111213", bucket: new Date("2026-11-22T10:00:00Z"), pattern: "fingerprint", paymentsCount: 1, amountSumWei: 3n },
    ]);
    expect(r.daily.providers).toEqual([
      { providerKey: PROVIDER, bucket: new Date("2026-11-22T00:00:00Z"), pattern: "address", paymentsCount: 2, amountSumWei: 30n },
      { providerKey: "0a0b0c0d0e0f10111213", bucket: new Date("2026-11-22T00:00:00Z"), pattern: "fingerprint", paymentsCount: 1, amountSumWei: 3n },
    ]);
    expect(r.providerTotals).toEqual([
      {
        providerKey: PROVIDER,
        pattern: "address",
        paymentsCount: 2,
        amountSumWei: 30n,
        firstSeen: new Date("2026-11-22T08:00:00Z"),
        lastSeen: new Date("2026-11-22T11:00:00Z"),
      },
      {
        providerKey: "0a0b0c0d0e0f10111213",
        pattern: "fingerprint",
        paymentsCount: 1,
        amountSumWei: 3n,
        firstSeen: new Date("2026-11-22T10:00:00Z"),
        lastSeen: new Date("2026-11-22T10:00:00Z"),
      },
    ]);
  });

  it("splits entity and provider buckets by token: payments and fees per token, each provider payment once", () => {
    const T1 = "0x" + "2".repeat(40);
    const T2 = "0x" + "3".repeat(40);
    const rows = [
      row({ txHash: TX1, agentId: "agent-a", kind: "payment_sent", amountWei: BIG, tokenAddress: T1, routedToAddress: PROVIDER }),
      row({ txHash: TX1, agentId: "gw-mpp", kind: "payment_received", amountWei: BIG, tokenAddress: T1, routedToAddress: PROVIDER }),
      row({ txHash: TX1, logIndex: 1, agentId: "agent-a", kind: "payment_sent", amountWei: 4n, tokenAddress: T2, routedToAddress: PROVIDER }),
      row({ txHash: TX1, logIndex: 2, agentId: "agent-a", kind: "fee_paid", amountWei: 7n, tokenAddress: T2 }),
      row({ txHash: TX2, agentId: "agent-a", kind: "payment_sent", amountWei: 3n, tokenAddress: T2, ts: new Date("2026-11-22T11:00:00Z") }),
    ];
    const r = computeRollups(rows);
    const h10 = new Date("2026-11-22T10:00:00Z");
    const h11 = new Date("2026-11-22T11:00:00Z");
    const day = new Date("2026-11-22T00:00:00Z");
    expect(r.hourly.entityTokens).toEqual([
      { entityId: "agent-a", bucket: h10, tokenAddress: T1, paymentsCount: 1, amountSumWei: BIG, feeCount: 0, feeSumWei: 0n },
      { entityId: "gw-mpp", bucket: h10, tokenAddress: T1, paymentsCount: 1, amountSumWei: BIG, feeCount: 0, feeSumWei: 0n },
      { entityId: "agent-a", bucket: h10, tokenAddress: T2, paymentsCount: 1, amountSumWei: 4n, feeCount: 1, feeSumWei: 7n },
      { entityId: "agent-a", bucket: h11, tokenAddress: T2, paymentsCount: 1, amountSumWei: 3n, feeCount: 0, feeSumWei: 0n },
    ]);
    expect(r.daily.entityTokens).toEqual([
      { entityId: "agent-a", bucket: day, tokenAddress: T1, paymentsCount: 1, amountSumWei: BIG, feeCount: 0, feeSumWei: 0n },
      { entityId: "gw-mpp", bucket: day, tokenAddress: T1, paymentsCount: 1, amountSumWei: BIG, feeCount: 0, feeSumWei: 0n },
      { entityId: "agent-a", bucket: day, tokenAddress: T2, paymentsCount: 2, amountSumWei: 7n, feeCount: 1, feeSumWei: 7n },
    ]);
    expect(r.hourly.providerTokens).toEqual([
      { providerKey: PROVIDER, bucket: h10, tokenAddress: T1, paymentsCount: 1, amountSumWei: BIG },
      { providerKey: PROVIDER, bucket: h10, tokenAddress: T2, paymentsCount: 1, amountSumWei: 4n },
    ]);
    // the per-token buckets add up to the buckets they split
    const sum = (xs: { amountSumWei: bigint }[]) => xs.reduce((a, x) => a + x.amountSumWei, 0n);
    expect(sum(r.daily.providerTokens)).toBe(sum(r.daily.providers));
    expect(sum(r.daily.entityTokens)).toBe(r.daily.entities.reduce((a, e) => a + e.sentSumWei + e.receivedSumWei, 0n));
  });

  it("gives nothing for no rows", () => {
    const none = { entities: [], ledger: [], ledgerTokens: [], providers: [], entityTokens: [], providerTokens: [] };
    expect(computeRollups([])).toEqual({ hourly: none, daily: none, entityTotals: [], providerTotals: [] });
  });
});
