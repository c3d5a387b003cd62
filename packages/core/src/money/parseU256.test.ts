import { describe, expect, it } from "vitest";
import { MAX_U256, hexWordToBigInt, parseU256 } from "./parseU256.ts";

describe("parseU256", () => {
  it("parses exact values beyond 2^53 and up to 2^256-1", () => {
    expect(parseU256("9007199254740993")).toBe(9007199254740993n);
    expect(parseU256(MAX_U256.toString())).toBe(MAX_U256);
    expect(parseU256("0")).toBe(0n);
  });
  it.each(["-1", "1.5", "1e6", "01", " 1", "", "0x10", (2n ** 256n).toString()])("rejects %j", (v) => {
    expect(() => parseU256(v)).toThrow(/not a valid amount/);
  });
  it("rejects numbers", () => expect(() => parseU256(5)).toThrow(/decimal string/));
  it("reads an ABI word with or without 0x", () => {
    expect(hexWordToBigInt(`0x${"0".repeat(62)}ff`)).toBe(255n);
    expect(hexWordToBigInt(`${"0".repeat(63)}1`)).toBe(1n);
    expect(hexWordToBigInt("f".repeat(64))).toBe(MAX_U256);
  });

  it("says why an amount is refused: not decimal, or beyond uint256", () => {
    expect(() => parseU256("1.5")).toThrow('"1.5" is not a valid amount: expected a non-negative integer in decimal');
    expect(() => parseU256((2n ** 256n).toString())).toThrow(`"${(2n ** 256n).toString().slice(0, 80)}" is not a valid amount: larger than uint256`);
    expect(() => parseU256(null)).toThrow('"null" is not a valid amount: expected a decimal string');
  });
});
