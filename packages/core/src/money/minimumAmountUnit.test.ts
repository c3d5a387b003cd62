import { describe, expect, it } from "vitest";
import { commonTokenUnit, minimumAmountUnit } from "./minimumAmountUnit.ts";

const USD6 = { address: "0x20C0000000000000000000000000000000000000", symbol: "pathUSD", decimals: 6, currency: "USD" };
const ALPHA6 = { address: "0x20c0000000000000000000000000000000000001", symbol: "AlphaUSD", decimals: 6, currency: "USD" };
const EUR6 = { address: "0x20c0000000000000000000000000000000000002", symbol: "EURt", decimals: 6, currency: "EUR" };
const ETH18 = { address: "0x20c00000000000000000000000000000000000e1", symbol: "WETHt", decimals: 18, currency: "ETH" };

describe("commonTokenUnit", () => {
  it("names the one unit tokens of equal decimals share, and none for mixed decimals", () => {
    expect(commonTokenUnit([])).toEqual({ decimals: 6, unit: "token units" });
    expect(commonTokenUnit([ETH18])).toEqual({ decimals: 18, unit: "WETHt" });
    expect(commonTokenUnit([USD6, ALPHA6])).toEqual({ decimals: 6, unit: "USD" });
    expect(commonTokenUnit([USD6, EUR6])).toEqual({ decimals: 6, unit: "token units" });
    expect(commonTokenUnit([USD6, { ...ALPHA6, currency: undefined }])).toEqual({ decimals: 6, unit: "token units" });
    expect(commonTokenUnit([USD6, ETH18])).toBeNull();
  });
});

describe("minimumAmountUnit", () => {
  it("a chosen token: its decimals and symbol (address in any case); outside the allowlist: refused", () => {
    expect(minimumAmountUnit([USD6, ETH18], ETH18.address.toUpperCase().replace("0X", "0x"))).toEqual({ decimals: 18, unit: "WETHt" });
    expect(minimumAmountUnit([USD6, ETH18], USD6.address.toLowerCase())).toEqual({ decimals: 6, unit: "pathUSD" });
    expect(minimumAmountUnit([USD6, ETH18], "0x00000000000000000000000000000000000000aa")).toEqual({
      refused: expect.stringMatching(/not a token of the registry's allowlist \(pathUSD, WETHt\)/),
    });
  });
  it("any token: the common decimals, refused when they differ; no allowlist: 6 decimals for any token", () => {
    expect(minimumAmountUnit([USD6, ALPHA6])).toEqual({ decimals: 6, unit: "USD" });
    expect(minimumAmountUnit([USD6, ETH18])).toEqual({ refused: expect.stringContaining("different decimals (pathUSD 6, WETHt 18)") });
    expect(minimumAmountUnit([])).toEqual({ decimals: 6, unit: "token units" });
    expect(minimumAmountUnit([], "0x00000000000000000000000000000000000000aa")).toEqual({ decimals: 6, unit: "token units" });
  });
});
