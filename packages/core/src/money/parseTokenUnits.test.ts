import { describe, expect, it } from "vitest";
import { parseTokenUnits } from "./parseTokenUnits.ts";

describe("parseTokenUnits", () => {
  it("converts exactly, beyond what a float holds", () => {
    expect(parseTokenUnits("1.25")).toBe(1_250_000n);
    expect(parseTokenUnits("0.000001")).toBe(1n);
    expect(parseTokenUnits("0.1")).toBe(100_000n); // 0.1 is not exact as a float
    expect(parseTokenUnits(" 7 ")).toBe(7_000_000n);
    expect(parseTokenUnits("3.")).toBe(3_000_000n);
    expect(parseTokenUnits(".5")).toBe(500_000n);
    expect(parseTokenUnits("123456789012345678901234567.890123")).toBe(123456789012345678901234567890123n);
    expect(parseTokenUnits("12", 0)).toBe(12n);
  });
  it("refuses what is not a plain amount", () => {
    for (const bad of ["", "-1", "+1", "1e3", "1,5", "1 000", "0x10", "1.2.3", ".", "abc", "NaN"]) expect(() => parseTokenUnits(bad), bad).toThrow(RangeError);
    expect(() => parseTokenUnits("0.0000001")).toThrow(/more than 6 decimal places/);
    expect(() => parseTokenUnits("1.5", 0)).toThrow(/more than 0 decimal places/);
  });
});

describe("parseTokenUnits: amounts without a whole part", () => {
  it("reads several fraction digits after a bare point and refuses anything after them", () => {
    expect(parseTokenUnits(".25")).toBe(250_000n);
    expect(parseTokenUnits(".000001")).toBe(1n);
    expect(() => parseTokenUnits(".5x")).toThrow(RangeError);
    expect(() => parseTokenUnits(".5.5")).toThrow(RangeError);
  });
});
