import type { EventDraft, V02Trace } from "@agent-ledger/core";
import { describe, expect, it } from "vitest";
import { createDiffAccumulator, diffReport, summarizeDiff } from "./summarizeDiff.ts";

const row = (over: Partial<EventDraft>): EventDraft => ({
  ts: new Date("2026-11-25T00:00:00Z"), agentId: "agent", agentLabel: "Agent", agentCategory: "agent", counterpartyAddress: "0x1",
  counterpartyLabel: "", counterpartyCategory: null, kind: "payment_sent", amountWei: 10n, tokenAddress: "0xt", txHash: "0xa", logIndex: 0,
  sourceBlock: 1n, methodologyVersion: "v0.1", routedToAddress: "", routedToLabel: "", routedFingerprint: null, explorerUrl: "", ...over,
});

describe("summarizeDiff", () => {
  it("counts rows, payments (once per tx/log) and volume per version and entity, and says why payments stop counting", () => {
    const acc = createDiffAccumulator();
    const before = [
      row({ agentId: "a", kind: "payment_sent", logIndex: 0, amountWei: 10n }),
      row({ agentId: "b", kind: "payment_received", logIndex: 0, amountWei: 10n }), // the same payment, other side
      row({ agentId: "a", kind: "payment_received", logIndex: 1, amountWei: 10n ** 30n, tokenAddress: "0xjunk" }),
      row({ agentId: "a", kind: "payment_received", logIndex: 2, amountWei: 500n }),
      row({ agentId: "g", kind: "payment_sent", logIndex: 3, amountWei: 95n, routedToAddress: "0xp" }),
    ];
    const after = [
      row({ agentId: "a", kind: "payment_sent", logIndex: 0, amountWei: 10n, methodologyVersion: "v0.2" }),
      row({ agentId: "b", kind: "payment_received", logIndex: 0, amountWei: 10n, methodologyVersion: "v0.2" }),
      row({ agentId: "a", kind: "funding_received", logIndex: 2, amountWei: 500n, methodologyVersion: "v0.2" }),
      row({ agentId: "g", kind: "settlement_sent", logIndex: 3, amountWei: 95n, routedToAddress: "0xq", methodologyVersion: "v0.2" }),
    ];
    const trace: V02Trace[] = [{ txHash: "0xa", logIndex: 1, note: "not_allowlisted_token" }, { txHash: "0xa", logIndex: 2, note: "funding" }];
    summarizeDiff(acc, before, after, trace);
    const r = diffReport(acc, "v0.1", "v0.2");
    expect(r.global.before).toMatchObject({ rows: 5, payments: 4, volume_wei: (10n + 10n ** 30n + 500n + 95n).toString() });
    expect(r.global.after).toMatchObject({ rows: 4, payments: 1, volume_wei: "10", rows_by_kind: { funding_received: 1, payment_received: 1, payment_sent: 1, settlement_sent: 1 } });
    expect(r.why.no_longer_activity).toEqual({
      funding: { payments: 1, volume_wei: "500" },
      not_allowlisted_token: { payments: 1, volume_wei: (10n ** 30n).toString() },
      now_settlement_sent: { payments: 1, volume_wei: "95" },
    });
    expect(r.why.new_activity).toEqual({});
    expect(r.why.rows_rerouted).toBe(1);
    expect(r.entities.a).toEqual({
      before: { rows: 3, sent_count: 1, sent_wei: "10", received_count: 2, received_wei: (10n ** 30n + 500n).toString() },
      after: { rows: 2, sent_count: 1, sent_wei: "10", received_count: 0, received_wei: "0" },
    });
  });
});
