import { describe, expect, it } from "vitest";
import { balanceText } from "./balance.ts";

// The wallet page's balances: each in the decimals the API answered for its token (it once wrote every balance with
// 6 decimals, so an 18-decimal token showed 10^12 times its balance).
describe("balanceText", () => {
  it("writes each balance in its own token's decimals, exactly", () => {
    const pathUsd = "0x20c0000000000000000000000000000000000000";
    expect(balanceText({ token: pathUsd, symbol: "PathUSD", decimals: 6, balance_wei: "18749999" })).toEqual({ value: "18.749999", unit: "pathUSD" });
    const other = "0x1111111111111111111111111111111111111111";
    expect(balanceText({ token: other, symbol: "WETH", decimals: 18, balance_wei: "1234567890123456789012" })).toEqual({
      value: "1,234.567890123456789012",
      unit: "WETH",
    });
    expect(balanceText({ token: other, symbol: null, decimals: 18, balance_wei: "1" })).toEqual({ value: "0.000000000000000001", unit: "0x111111…111111" });
    expect(balanceText({ token: other, symbol: "RAW", decimals: 0, balance_wei: "9007199254740993" })).toEqual({ value: "9,007,199,254,740,993", unit: "RAW" });
    expect(balanceText({ token: other, symbol: "T2", decimals: 2, balance_wei: "0" })).toEqual({ value: "0.00", unit: "T2" });
  });
});
