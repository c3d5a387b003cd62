import { describe, expect, it } from "vitest";
import type { EventDraft } from "../matcher/types.ts";
import { computeRollups } from "./computeRollups.ts";

const TX1 = `0x${"1".repeat(64)}`;
const TX2 = `0x${"2".repeat(64)}`;
const TX3 = `0x${"3".repeat(64)}`;
const PROVIDER = "0x00000000000000000000000000000000000a11ce";
const FP = "0a0b0c0d0e0f10111213";

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
const hour = (iso: string) => new Date(`2026-11-22T${iso}:00:00Z`);
const day = new Date("2026-11-22T00:00:00Z");

describe("computeRollups: several rows in one bucket", () => {
  it("adds two payments of one entity in the same hour into one bucket per grain", () => {
    const rows = [
      row({ txHash: TX1, amountWei: 5n, ts: new Date("2026-11-22T10:01:00Z"), routedToAddress: PROVIDER }),
      row({ txHash: TX2, amountWei: 7n, ts: new Date("2026-11-22T10:59:59Z"), routedToAddress: PROVIDER }),
      row({ txHash: TX2, logIndex: 1, agentId: "shop-mpp", kind: "payment_received", amountWei: 9n, ts: new Date("2026-11-22T10:30:00Z") }),
      row({ txHash: TX2, logIndex: 1, agentId: "agent-a", kind: "payment_sent", amountWei: 9n, ts: new Date("2026-11-22T10:30:00Z") }), // same payment, other side
    ];
    const r = computeRollups(rows);
    expect(r.hourly.entities).toEqual([
      { entityId: "agent-a", bucket: hour("10"), sentCount: 3, sentSumWei: 21n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n },
      { entityId: "shop-mpp", bucket: hour("10"), sentCount: 0, sentSumWei: 0n, receivedCount: 1, receivedSumWei: 9n, feeCount: 0, feeSumWei: 0n },
    ]);
    expect(r.daily.entities.map((e) => [e.entityId, e.bucket, e.sentCount, e.sentSumWei, e.receivedCount])).toEqual([
      ["agent-a", day, 3, 21n, 0],
      ["shop-mpp", day, 0, 0n, 1],
    ]);
    expect(r.hourly.ledger).toEqual([{ bucket: hour("10"), paymentsCount: 3, amountSumWei: 21n }]);
    expect(r.daily.ledger).toEqual([{ bucket: day, paymentsCount: 3, amountSumWei: 21n }]);
    expect(r.hourly.providers).toEqual([{ providerKey: PROVIDER, bucket: hour("10"), pattern: "address", paymentsCount: 2, amountSumWei: 12n }]);
    expect(r.providerTotals).toEqual([
      { providerKey: PROVIDER, pattern: "address", paymentsCount: 2, amountSumWei: 12n, firstSeen: hour("10"), lastSeen: hour("10") },
    ]);
    expect(r.entityTotals).toEqual([
      { entityId: "agent-a", sentCount: 3, sentSumWei: 21n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n },
      { entityId: "shop-mpp", sentCount: 0, sentSumWei: 0n, receivedCount: 1, receivedSumWei: 9n, feeCount: 0, feeSumWei: 0n },
    ]);
  });
  it("adds fees of one entity in one bucket, and a fee never hides the payment at its log index", () => {
    const rows = [
      row({ txHash: TX1, logIndex: 3, kind: "fee_paid", amountWei: 2n }),
      row({ txHash: TX2, logIndex: 3, kind: "fee_paid", amountWei: 4n }),
      row({ txHash: TX1, logIndex: 3, kind: "payment_sent", amountWei: 10n }),
    ];
    const r = computeRollups(rows);
    expect(r.hourly.entities).toEqual([
      { entityId: "agent-a", bucket: hour("10"), sentCount: 1, sentSumWei: 10n, receivedCount: 0, receivedSumWei: 0n, feeCount: 2, feeSumWei: 6n },
    ]);
    expect(r.hourly.ledger).toEqual([{ bucket: hour("10"), paymentsCount: 1, amountSumWei: 10n }]);
  });
  it("keeps a provider's first and last hour whatever order the rows come in, and sums per fingerprint", () => {
    const rows = [
      row({ txHash: TX2, ts: new Date("2026-11-22T12:10:00Z"), routedFingerprint: FP, amountWei: 2n }),
      row({ txHash: TX1, ts: new Date("2026-11-22T09:10:00Z"), routedFingerprint: FP, amountWei: 3n }),
      row({ txHash: TX3, ts: new Date("2026-11-22T11:10:00Z"), routedFingerprint: FP, amountWei: 4n }),
    ];
    const r = computeRollups(rows);
    expect(r.providerTotals).toEqual([
      { providerKey: FP, pattern: "fingerprint", paymentsCount: 3, amountSumWei: 9n, firstSeen: hour("09"), lastSeen: hour("12") },
    ]);
    expect(r.daily.providers).toEqual([{ providerKey: FP, bucket: day, pattern: "fingerprint", paymentsCount: 3, amountSumWei: 9n }]);
    expect(r.hourly.providers.map((p) => [p.bucket, p.amountSumWei])).toEqual([
      [hour("12"), 2n],
      [hour("09"), 3n],
      [hour("11"), 4n],
    ]);
  });
});

describe("computeRollups: methodology v0.2 rows (rule 3: what reached the provider, once)", () => {
  const v2 = (over: Partial<EventDraft>) => row({ methodologyVersion: "v0.2", ...over });
  const TOKEN = "0x" + "2".repeat(40);

  it("counts settlement legs for their provider address and unlinked fingerprints, never a linked payment or a funding move", () => {
    const rows = [
      // the agent's payment routed by a linked fingerprint: activity, but its provider is counted from the settlement leg
      v2({ txHash: TX1, logIndex: 0, kind: "payment_sent", amountWei: 100n, routedToAddress: PROVIDER, routedFingerprint: FP }),
      v2({ txHash: TX1, logIndex: 0, agentId: "gw-mpp", kind: "payment_received", amountWei: 100n, routedToAddress: PROVIDER, routedFingerprint: FP }),
      // the gateway's settlement leg, seen from both watched sides: one provider payment of 95
      v2({ txHash: TX2, logIndex: 4, agentId: "gw-mpp", kind: "settlement_sent", amountWei: 95n, routedToAddress: PROVIDER }),
      v2({ txHash: TX2, logIndex: 4, agentId: "prov-mpp", kind: "settlement_received", amountWei: 95n, routedToAddress: PROVIDER }),
      // a settlement leg without a provider address counts for nobody
      v2({ txHash: TX2, logIndex: 5, agentId: "gw-mpp", kind: "settlement_sent", amountWei: 1n }),
      // an unlinked fingerprint is its own provider key
      v2({ txHash: TX3, logIndex: 0, kind: "payment_sent", amountWei: 7n, routedFingerprint: FP }),
      // funding in and out: rows, not activity, no provider
      v2({ txHash: TX3, logIndex: 1, kind: "funding_received", amountWei: 1_000n }),
      v2({ txHash: TX3, logIndex: 2, kind: "funding_sent", amountWei: 1_000n, routedFingerprint: FP }),
    ];
    const r = computeRollups(rows);
    expect(r.providerTotals).toEqual([
      { providerKey: PROVIDER, pattern: "address", paymentsCount: 1, amountSumWei: 95n, firstSeen: hour("10"), lastSeen: hour("10") },
      { providerKey: FP, pattern: "fingerprint", paymentsCount: 1, amountSumWei: 7n, firstSeen: hour("10"), lastSeen: hour("10") },
    ]);
    expect(r.hourly.providers).toEqual([
      { providerKey: PROVIDER, bucket: hour("10"), pattern: "address", paymentsCount: 1, amountSumWei: 95n },
      { providerKey: FP, bucket: hour("10"), pattern: "fingerprint", paymentsCount: 1, amountSumWei: 7n },
    ]);
    expect(r.hourly.providerTokens).toEqual([
      { providerKey: PROVIDER, bucket: hour("10"), tokenAddress: TOKEN, paymentsCount: 1, amountSumWei: 95n },
      { providerKey: FP, bucket: hour("10"), tokenAddress: TOKEN, paymentsCount: 1, amountSumWei: 7n },
    ]);
    // the ledger: the two payments (100 once, 7), no settlement legs, no funding
    expect(r.hourly.ledger).toEqual([{ bucket: hour("10"), paymentsCount: 2, amountSumWei: 107n }]);
    expect(r.hourly.ledgerTokens).toEqual([{ bucket: hour("10"), tokenAddress: TOKEN, paymentsCount: 2, amountSumWei: 107n }]);
    expect(r.entityTotals).toEqual([
      { entityId: "agent-a", sentCount: 2, sentSumWei: 107n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n },
      { entityId: "gw-mpp", sentCount: 0, sentSumWei: 0n, receivedCount: 1, receivedSumWei: 100n, feeCount: 0, feeSumWei: 0n },
      { entityId: "prov-mpp", sentCount: 0, sentSumWei: 0n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n },
    ]);
    // per-token entity buckets hold activity only (no settlement or funding rows)
    expect(r.hourly.entityTokens).toEqual([
      { entityId: "agent-a", bucket: hour("10"), tokenAddress: TOKEN, paymentsCount: 2, amountSumWei: 107n, feeCount: 0, feeSumWei: 0n },
      { entityId: "gw-mpp", bucket: hour("10"), tokenAddress: TOKEN, paymentsCount: 1, amountSumWei: 100n, feeCount: 0, feeSumWei: 0n },
    ]);
  });

  it("a fee is an entity-token fee, not a payment; v0.1 routes every routed payment, not its fees", () => {
    const r = computeRollups([
      row({ txHash: TX1, logIndex: 9, kind: "fee_paid", amountWei: 3n }),
      row({ txHash: TX2, logIndex: 0, kind: "payment_received", amountWei: 8n, routedToAddress: PROVIDER, routedFingerprint: FP }),
    ]);
    expect(r.hourly.entityTokens).toEqual([
      { entityId: "agent-a", bucket: hour("10"), tokenAddress: "0x" + "2".repeat(40), paymentsCount: 1, amountSumWei: 8n, feeCount: 1, feeSumWei: 3n },
    ]);
    expect(r.daily.entityTokens).toEqual([
      { entityId: "agent-a", bucket: day, tokenAddress: "0x" + "2".repeat(40), paymentsCount: 1, amountSumWei: 8n, feeCount: 1, feeSumWei: 3n },
    ]);
    expect(r.providerTotals).toEqual([
      { providerKey: PROVIDER, pattern: "address", paymentsCount: 1, amountSumWei: 8n, firstSeen: hour("10"), lastSeen: hour("10") },
    ]);
    expect(r.hourly.ledger).toEqual([{ bucket: hour("10"), paymentsCount: 1, amountSumWei: 8n }]);
  });
});

describe("computeRollups: per-token buckets and v0.2 provider rows", () => {
  it("keeps one ledger and one provider bucket per token, and adds a token's payments in one bucket together", () => {
    const TOKEN_B = "0x" + "3".repeat(40);
    const rows = [
      row({ txHash: TX1, amountWei: 5n, routedToAddress: PROVIDER }),
      row({ txHash: TX2, amountWei: 7n, routedToAddress: PROVIDER }),
      row({ txHash: TX3, amountWei: 11n, routedToAddress: PROVIDER, tokenAddress: TOKEN_B }),
    ];
    const r = computeRollups(rows);
    const token = "0x" + "2".repeat(40);
    expect(r.hourly.ledgerTokens).toEqual([
      { bucket: hour("10"), tokenAddress: token, paymentsCount: 2, amountSumWei: 12n },
      { bucket: hour("10"), tokenAddress: TOKEN_B, paymentsCount: 1, amountSumWei: 11n },
    ]);
    expect(r.hourly.providerTokens).toEqual([
      { providerKey: PROVIDER, bucket: hour("10"), tokenAddress: token, paymentsCount: 2, amountSumWei: 12n },
      { providerKey: PROVIDER, bucket: hour("10"), tokenAddress: TOKEN_B, paymentsCount: 1, amountSumWei: 11n },
    ]);
    expect(r.daily.ledgerTokens.map((t) => [t.tokenAddress, t.paymentsCount])).toEqual([
      [token, 2],
      [TOKEN_B, 1],
    ]);
  });

  it("v0.2: a settlement leg whose only watched side is the provider counts for the provider; an unrouted payment never does", () => {
    const received = row({ methodologyVersion: "v0.2", kind: "settlement_received", agentId: "shop-mpp", routedToAddress: PROVIDER, amountWei: 9n });
    const unrouted = row({ methodologyVersion: "v0.2", txHash: TX2, amountWei: 4n });
    const r = computeRollups([received, unrouted]);
    expect(r.providerTotals).toEqual([
      { providerKey: PROVIDER, pattern: "address", paymentsCount: 1, amountSumWei: 9n, firstSeen: hour("10"), lastSeen: hour("10") },
    ]);
    expect(r.hourly.providers).toEqual([{ providerKey: PROVIDER, bucket: hour("10"), pattern: "address", paymentsCount: 1, amountSumWei: 9n }]);
  });
});

describe("computeRollups: methodology v0.3 rows (rule 6: session payouts by payee address, charges by serverId group, settlement legs by address)", () => {
  const v3 = (over: Partial<EventDraft>) => row({ methodologyVersion: "v0.3", ...over });
  const PAYEE = "0x00000000000000000000000000000000000b0b00";
  const CHANNEL = `0x${"c1".repeat(32)}`;

  it("a session payout counts for its payee (Pattern A), a charge for its serverId group (Pattern B), each once; funding never", () => {
    const rows = [
      // a charge seen from the payer and from the service its serverId names: one payment for the fingerprint group
      v3({ txHash: TX1, logIndex: 0, kind: "payment_sent", amountWei: 100n, routedFingerprint: FP, attribution: "server_id_host" }),
      v3({ txHash: TX1, logIndex: 0, agentId: "fal-mpp", kind: "payment_received", amountWei: 100n, routedFingerprint: FP, attribution: "server_id_host" }),
      // its split leg, to another recipient: the same group
      v3({ txHash: TX1, logIndex: 2, kind: "payment_sent", amountWei: 10n, routedFingerprint: FP, attribution: "server_id_host" }),
      // a session payout between watched parties, and one seen only from the escrow (settlement_sent): the payee's
      v3({ txHash: TX2, logIndex: 1, kind: "payment_sent", amountWei: 30n, routedToAddress: PAYEE, attribution: "session_escrow", channelId: CHANNEL }),
      v3({
        txHash: TX2,
        logIndex: 1,
        agentId: "svc",
        kind: "payment_received",
        amountWei: 30n,
        routedToAddress: PAYEE,
        attribution: "session_escrow",
        channelId: CHANNEL,
      }),
      v3({
        txHash: TX3,
        logIndex: 1,
        agentId: "escrow",
        kind: "settlement_sent",
        amountWei: 20n,
        routedToAddress: PAYEE,
        attribution: "session_escrow",
        channelId: CHANNEL,
      }),
      // deposit and refund: funding, never a provider's
      v3({ txHash: TX3, logIndex: 0, kind: "funding_sent", amountWei: 1_000n, channelId: CHANNEL }),
      v3({ txHash: TX3, logIndex: 2, kind: "funding_received", amountWei: 950n, channelId: CHANNEL }),
      // an unrouted payment and a fee count for nobody
      v3({ txHash: TX3, logIndex: 3, kind: "payment_sent", amountWei: 4n, attribution: "recipient_wallet" }),
      v3({ txHash: TX3, logIndex: 4, kind: "fee_paid", amountWei: 1n }),
    ];
    const r = computeRollups(rows);
    expect(r.providerTotals).toEqual([
      { providerKey: FP, pattern: "fingerprint", paymentsCount: 2, amountSumWei: 110n, firstSeen: hour("10"), lastSeen: hour("10") },
      { providerKey: PAYEE, pattern: "address", paymentsCount: 2, amountSumWei: 50n, firstSeen: hour("10"), lastSeen: hour("10") },
    ]);
    expect(r.daily.providers).toEqual([
      { providerKey: FP, bucket: day, pattern: "fingerprint", paymentsCount: 2, amountSumWei: 110n },
      { providerKey: PAYEE, bucket: day, pattern: "address", paymentsCount: 2, amountSumWei: 50n },
    ]);
    // activity: the charge, its split, the watched payout and the unrouted payment; not the escrow-view payout
    expect(r.hourly.ledger).toEqual([{ bucket: hour("10"), paymentsCount: 4, amountSumWei: 144n }]);
    expect(r.entityTotals.find((e) => e.entityId === "fal-mpp")).toMatchObject({ receivedCount: 1, receivedSumWei: 100n });
  });

  it("a charge whose serverId is linked to a provider address counts once, by that address's settlement leg (v0.2 rule 3)", () => {
    // the linked charge (routed to the address and the fingerprint) and the gateway's settled leg to that address
    const charge = v3({
      txHash: TX1,
      logIndex: 0,
      kind: "payment_sent",
      amountWei: 100n,
      routedToAddress: PAYEE,
      routedFingerprint: FP,
      attribution: "server_id_host",
    });
    const leg = v3({ txHash: TX2, logIndex: 0, agentId: "gw", kind: "settlement_sent", amountWei: 90n, routedToAddress: PAYEE, routedFingerprint: FP });
    expect(computeRollups([charge, leg]).providerTotals.map((p) => [p.providerKey, p.paymentsCount, p.amountSumWei])).toEqual([[PAYEE, 1, 90n]]);
    // the same address on a session payout is Pattern A itself
    const payout = v3({ txHash: TX3, logIndex: 1, kind: "payment_received", amountWei: 7n, routedToAddress: PAYEE, attribution: "session_escrow" });
    expect(computeRollups([payout]).providerTotals.map((p) => [p.providerKey, p.pattern, p.amountSumWei])).toEqual([[PAYEE, "address", 7n]]);
    // a settlement leg without an address counts for nobody, in v0.2 and v0.3 alike
    const bare = { txHash: TX2, logIndex: 0, kind: "settlement_sent" as const, amountWei: 5n, routedFingerprint: FP };
    expect(computeRollups([row({ ...bare, methodologyVersion: "v0.2" })]).providerTotals).toEqual([]);
    expect(computeRollups([v3(bare)]).providerTotals).toEqual([]);
  });
});
