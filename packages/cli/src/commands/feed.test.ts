import { describe, expect, it } from "vitest";
import { formatFeedRow } from "./feed.ts";

const USD6 = { address: "0x20c0000000000000000000000000000000000000", symbol: "pathUSD", decimals: 6, currency: "USD" };
const ETH18 = { address: "0x20c00000000000000000000000000000000000e1", symbol: "WETHt", decimals: 18, currency: "ETH" };
const row = (token: string, amount: string) => ({
  id: 7,
  ts: "2026-11-25T12:00:00.000Z",
  agent_id: "a",
  kind: "payment_sent",
  amount_wei: amount,
  token_address: token,
  counterparty_address: "0xbb",
  tx_hash: "0xcc",
});

describe("formatFeedRow", () => {
  it("writes each amount in its own token's decimals with its symbol, exactly", () => {
    expect(formatFeedRow(row(ETH18.address, "1000000000000000001"), [USD6, ETH18])).toBe(
      "#7 2026-11-25T12:00:00.000Z a payment_sent 1.000000000000000001 WETHt → 0xbb tx 0xcc",
    );
    expect(formatFeedRow(row(USD6.address.toUpperCase().replace("0X", "0x"), "1250000"), [USD6, ETH18])).toContain(" 1.25 pathUSD → ");
  });
  it("a token outside the allowlist in raw units; no allowlist (v0.1): 6-decimal units without a symbol, as before", () => {
    expect(formatFeedRow(row("0x00000000000000000000000000000000000000aa", "5"), [USD6])).toContain(" 5 raw units → ");
    expect(formatFeedRow(row(ETH18.address, "1250000"))).toContain(" payment_sent 1.25 → ");
  });
});
