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
});
