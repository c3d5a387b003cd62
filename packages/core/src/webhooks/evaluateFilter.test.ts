import { describe, expect, it } from "vitest";
import { evaluateFilter } from "./evaluateFilter.ts";

const event = {
  agentId: "demo-agent",
  counterpartyAddress: "0x00000000000000000000000000000000000000aa",
  routedToAddress: "0x00000000000000000000000000000000000000bb",
  amountWei: 2n ** 70n,
  tokenAddress: "0x20c0000000000000000000000000000000000000",
};

describe("evaluateFilter", () => {
  it("matches on agent alone", () => {
    expect(evaluateFilter({ agentId: "demo-agent" }, event)).toBe(true);
    expect(evaluateFilter({ agentId: "other" }, event)).toBe(false);
  });
  it("ANDs every present condition, comparing addresses case-insensitively", () => {
    const all = {
      agentId: "demo-agent",
      recipientAddress: "0x00000000000000000000000000000000000000AA",
      routedToAddress: event.routedToAddress,
      tokenAddress: event.tokenAddress,
      minAmountWei: 2n ** 70n,
    };
    expect(evaluateFilter(all, event)).toBe(true);
    expect(evaluateFilter({ ...all, recipientAddress: "0x" + "c".repeat(40) }, event)).toBe(false);
    expect(evaluateFilter({ ...all, routedToAddress: "0x" + "c".repeat(40) }, event)).toBe(false);
    expect(evaluateFilter({ ...all, tokenAddress: "0x" + "c".repeat(40) }, event)).toBe(false);
  });
  it("compares min_amount_wei as big integers (beyond 2^53)", () => {
    expect(evaluateFilter({ agentId: "demo-agent", minAmountWei: 2n ** 70n + 1n }, event)).toBe(false);
    expect(evaluateFilter({ agentId: "demo-agent", minAmountWei: 2n ** 70n }, event)).toBe(true);
    expect(evaluateFilter({ agentId: "demo-agent", minAmountWei: 0n }, { ...event, amountWei: 0n })).toBe(true);
  });
  it("does not match a routed filter against an unrouted event", () => {
    expect(evaluateFilter({ agentId: "demo-agent", routedToAddress: event.routedToAddress }, { ...event, routedToAddress: "" })).toBe(false);
  });
  it("treats an absent or null min_amount_wei as no condition, even for a zero amount", () => {
    expect(evaluateFilter({ agentId: "demo-agent", minAmountWei: null }, { ...event, amountWei: 0n })).toBe(true);
    expect(evaluateFilter({ agentId: "demo-agent", minAmountWei: undefined }, { ...event, amountWei: 0n })).toBe(true);
    expect(evaluateFilter({ agentId: "demo-agent", minAmountWei: 1n }, { ...event, amountWei: 0n })).toBe(false);
  });
});
