import { describe, expect, it } from "vitest";
import { formatAmount, parseAmount, parseBaseUnits, tokenName } from "./amount.ts";
import { memoProblem } from "./memo.ts";

describe("parseAmount (human → 6-decimal base units, exact)", () => {
  it.each([
    ["1.25", 1_250_000n],
    ["1", 1_000_000n],
    ["0.000001", 1n],
    ["0.1", 100_000n],
    ["10.", 10_000_000n],
    [".5", 500_000n],
    ["007.50", 7_500_000n],
    ["  2.5  ", 2_500_000n],
    ["0", 0n],
    ["0.3", 300_000n], // 0.1 + 0.2 territory: no float ever involved
    ["123456789012345678901234567890.999999", 123456789012345678901234567890999999n],
  ])("%s → %s", (text, units) => expect(parseAmount(text)).toBe(units));

  it.each(["1.2345678", "0.0000001", "", " ", ".", "-1", "+1", "1e6", "1E-3", "1,25", "1 000", "0x10", "1.2.3", "∞", "NaN", "1_000", "١"])(
    "refuses %j",
    (text) => expect(() => parseAmount(text)).toThrow(RangeError),
  );

  it("says why: more than 6 decimals", () => {
    expect(() => parseAmount("1.1234567")).toThrow(/more than 6 decimal places/);
  });

  it("parses base units", () => {
    expect(parseBaseUnits("1250000")).toBe(1_250_000n);
    expect(() => parseBaseUnits("1.5")).toThrow(RangeError);
    expect(() => parseBaseUnits("-1")).toThrow(RangeError);
  });
});

describe("formatAmount", () => {
  it.each([
    [1_250_000n, "1.25"],
    [10_000_000n, "10.00"],
    [1n, "0.000001"],
    [0n, "0.00"],
    [123_456_789n, "123.456789"],
    ["5000000", "5.00"],
    [-1_500_000n, "-1.50"],
  ])("%s → %s", (units, text) => expect(formatAmount(units)).toBe(text));

  it("round-trips every formatted value", () => {
    for (let v = 0n; v < 3_000_000n; v += 99_991n) expect(parseAmount(formatAmount(v))).toBe(v);
  });

  it("names known tokens", () => {
    expect(tokenName("0x20c0000000000000000000000000000000000000")).toBe("pathUSD");
    expect(tokenName("0x20C0000000000000000000000000000000000001")).toBe("AlphaUSD");
    expect(tokenName("0xabcdef0000000000000000000000000000001234")).toBe("0xabcd…1234");
  });
});

describe("memoProblem", () => {
  it("accepts text up to 32 UTF-8 bytes and even hex up to 32 bytes", () => {
    for (const ok of ["invoice-42", "x".repeat(32), "é".repeat(16), "0x01", `0x${"ab".repeat(32)}`, "0xZZ", ""]) expect(memoProblem(ok), ok).toBeNull();
  });
  it("refuses what does not fit a bytes32", () => {
    expect(memoProblem("x".repeat(33))).toMatch(/33 bytes/);
    expect(memoProblem("é".repeat(17))).toMatch(/34 bytes/);
    expect(memoProblem("0xabc")).toMatch(/odd/);
    expect(memoProblem(`0x${"ab".repeat(33)}`)).toMatch(/33 bytes/);
    expect(memoProblem("0x")).toMatch(/at least one byte/);
  });
});
