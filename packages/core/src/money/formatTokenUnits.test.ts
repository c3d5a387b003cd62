import { describe, expect, it } from "vitest";
import { formatTokenUnits } from "./formatTokenUnits.ts";

describe("formatTokenUnits", () => {
  it("formats base units exactly, beyond what a float can hold", () => {
    expect(formatTokenUnits(1_250_000n)).toBe("1.25");
    expect(formatTokenUnits("10000000")).toBe("10.00");
    expect(formatTokenUnits(1n)).toBe("0.000001");
    expect(formatTokenUnits(0n)).toBe("0.00");
    expect(formatTokenUnits(-1_500_000n)).toBe("-1.50");
    expect(formatTokenUnits(123456789012345678901234567890123n)).toBe("123456789012345678901234567.890123");
  });
  it("groups thousands on request and honours decimals / minFraction", () => {
    expect(formatTokenUnits(1_234_567_500_000n, { group: true })).toBe("1,234,567.50");
    expect(formatTokenUnits(999_000_000n, { group: true })).toBe("999.00");
    expect(formatTokenUnits(1234n, { decimals: 0 })).toBe("1234");
    expect(formatTokenUnits(1_000_000n, { minFraction: 0 })).toBe("1");
    expect(formatTokenUnits(1_000_000n, { minFraction: 6 })).toBe("1.000000");
  });

  it("puts a comma before every full group of three digits counted from the decimal point, and only when asked", () => {
    const grouped = (whole: bigint) => formatTokenUnits(whole * 1_000_000n, { group: true, minFraction: 0 });
    expect(grouped(1n)).toBe("1");
    expect(grouped(100n)).toBe("100");
    expect(grouped(1_000n)).toBe("1,000");
    expect(grouped(12_345n)).toBe("12,345");
    expect(grouped(123_456n)).toBe("123,456");
    expect(grouped(1_234_567_890n)).toBe("1,234,567,890");
    expect(formatTokenUnits(1_234_567_123_456n, { group: true })).toBe("1,234,567.123456");
    expect(formatTokenUnits(-1_234_000_000n, { group: true })).toBe("-1,234.00");
    expect(formatTokenUnits(1_234_000_000n)).toBe("1234.00");
    expect(formatTokenUnits(1_234_000_000n, { group: false })).toBe("1234.00");
  });
  it("drops only the trailing zeros of the fraction and reads strings and negatives exactly", () => {
    expect(formatTokenUnits(1_050_000n)).toBe("1.05");
    expect(formatTokenUnits(1_000_500n)).toBe("1.0005");
    expect(formatTokenUnits(100_000_001n)).toBe("100.000001");
    expect(formatTokenUnits("-1500000")).toBe("-1.50");
    expect(formatTokenUnits(-1n)).toBe("-0.000001");
    expect(formatTokenUnits(5n, { decimals: 1 })).toBe("0.5");
    expect(formatTokenUnits(50n, { decimals: 1 })).toBe("5.0");
    expect(formatTokenUnits(10n ** 18n, { decimals: 18, minFraction: 0 })).toBe("1");
  });
});
