import { describe, expect, it } from "vitest";
import { formatTokenAmount, parseTokenAmount, tokenName } from "./amounts.ts";

describe("parseTokenAmount", () => {
  it("converts human amounts exactly", () => {
    expect(parseTokenAmount("1.25")).toBe(1_250_000n);
    expect(parseTokenAmount("0.000001")).toBe(1n);
    expect(parseTokenAmount("10")).toBe(10_000_000n);
    expect(parseTokenAmount("10.")).toBe(10_000_000n);
    expect(parseTokenAmount(".5")).toBe(500_000n);
    expect(parseTokenAmount(" 3.1 ")).toBe(3_100_000n);
    expect(parseTokenAmount("123456789012345678901234567890.123456")).toBe(123456789012345678901234567890123456n);
  });
  it("refuses more than 6 decimals and anything that is not a plain decimal", () => {
    for (const bad of ["1.2345678", "", ".", "-1", "+1", "1e6", "1,5", "1 000", "0x10", "abc", "1.2.3"]) {
      expect(() => parseTokenAmount(bad), bad).toThrow(RangeError);
    }
  });
});

describe("formatTokenAmount", () => {
  it("formats with at least two decimals, grouping thousands", () => {
    expect(formatTokenAmount(1_250_000n)).toBe("1.25");
    expect(formatTokenAmount(10_000_000n)).toBe("10.00");
    expect(formatTokenAmount(1n)).toBe("0.000001");
    expect(formatTokenAmount("1234567890000")).toBe("1,234,567.89");
    expect(formatTokenAmount(0n)).toBe("0.00");
    expect(formatTokenAmount(-1_500_000n)).toBe("-1.50");
  });
  it("round-trips", () => {
    for (const v of [1n, 999_999n, 1_000_000n, 123_456_789n]) expect(parseTokenAmount(formatTokenAmount(v).replace(/,/g, ""))).toBe(v);
  });
  it("names known tokens", () => {
    expect(tokenName("0x20C0000000000000000000000000000000000000")).toBe("pathUSD");
    expect(tokenName("0x1234567890123456789012345678901234567890")).toBe("0x1234…7890");
  });
});
