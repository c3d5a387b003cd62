import { describe, expect, it } from "vitest";
import { encodeMemo } from "./encodeMemo.ts";

const zero = `0x${"0".repeat(64)}`;

describe("encodeMemo", () => {
  it("absent or empty → zero bytes32", () => {
    for (const v of [undefined, null, ""]) expect(encodeMemo(v)).toEqual({ ok: true, bytes32: zero, memo: null });
  });
  it("text → UTF-8, right-padded", () => {
    expect(encodeMemo("inv-42")).toEqual({ ok: true, bytes32: `0x${Buffer.from("inv-42").toString("hex").padEnd(64, "0")}`, memo: "inv-42" });
    expect(encodeMemo("é€").ok).toBe(true);
    expect(encodeMemo("x".repeat(32)).ok).toBe(true);
    expect(encodeMemo("€".repeat(11))).toMatchObject({ ok: false }); // 33 bytes
    expect(encodeMemo("x".repeat(33))).toMatchObject({ ok: false });
    expect(encodeMemo("a\u0000b")).toMatchObject({ ok: false });
  });
  it("0x-hex → bytes, left-aligned", () => {
    expect(encodeMemo("0xEF1ED712")).toEqual({ ok: true, bytes32: `0xef1ed712${"0".repeat(56)}`, memo: "0xEF1ED712" });
    expect(encodeMemo(`0x${"ab".repeat(32)}`)).toEqual({ ok: true, bytes32: `0x${"ab".repeat(32)}`, memo: `0x${"ab".repeat(32)}` });
    for (const bad of ["0x", "0x1", "0xzz", `0x${"ab".repeat(33)}`]) expect(encodeMemo(bad)).toMatchObject({ ok: false });
  });
  it("refuses non-strings", () => {
    for (const bad of [1, true, {}, []]) expect(encodeMemo(bad)).toMatchObject({ ok: false });
  });

  it("tells the payer which rule the memo broke", () => {
    expect(encodeMemo(1)).toEqual({ ok: false, reason: "memo must be a string" });
    expect(encodeMemo("0xzz")).toEqual({ ok: false, reason: "a memo starting with 0x must be hex" });
    expect(encodeMemo("0Xg1")).toEqual({ ok: false, reason: "a memo starting with 0x must be hex" });
    expect(encodeMemo("0x")).toEqual({ ok: false, reason: "a hex memo has 1 to 32 bytes" });
    expect(encodeMemo(`0x${"ab".repeat(33)}`)).toEqual({ ok: false, reason: "a hex memo has 1 to 32 bytes" });
    expect(encodeMemo("0xabc")).toEqual({ ok: false, reason: "a hex memo needs an even number of digits" });
    expect(encodeMemo("€".repeat(11))).toEqual({ ok: false, reason: "a text memo is at most 32 bytes of UTF-8 (got 33)" });
    expect(encodeMemo("a\u0000b")).toEqual({ ok: false, reason: "a text memo cannot contain NUL characters" });
  });
  it("reads 0X as hex too, and a text memo of exactly 32 UTF-8 bytes fills the word", () => {
    expect(encodeMemo("0XAB")).toEqual({ ok: true, bytes32: `0xab${"0".repeat(62)}`, memo: "0XAB" });
    expect(encodeMemo("x0ab")).toEqual({ ok: true, bytes32: `0x${Buffer.from("x0ab").toString("hex").padEnd(64, "0")}`, memo: "x0ab" });
    expect(encodeMemo("é".repeat(16))).toEqual({ ok: true, bytes32: `0x${"c3a9".repeat(16)}`, memo: "é".repeat(16) });
  });
});

describe("encodeMemo: 0x only as a prefix makes a hex memo", () => {
  it("a text memo with 0x inside is text", () => {
    expect(encodeMemo("refund 0xbeef")).toEqual({
      ok: true,
      bytes32: `0x${Buffer.from("refund 0xbeef").toString("hex").padEnd(64, "0")}`,
      memo: "refund 0xbeef",
    });
  });
});
