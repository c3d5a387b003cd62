import { size, slice, stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { decodeGatewayMemo } from "../src/memo/decodeGatewayMemo.ts";
import { encodeGatewayMemo } from "../src/memo/encodeGatewayMemo.ts";

describe("gateway memo (Pattern B)", () => {
  it("lays out magic ‖ fingerprint ‖ 8 zero bytes ‖ 7-byte nonce ‖ 2 zero bytes", () => {
    const memo = encodeGatewayMemo("0x0102030405060708090A", 0x11223344556677n);
    expect(size(memo)).toBe(32);
    expect(memo).toBe("0xef1ed71201" + "0102030405060708090a" + "00".repeat(8) + "11223344556677" + "0000");
    expect(slice(memo, 0, 5)).toBe("0xef1ed71201");
    expect(slice(memo, 5, 15)).toBe("0x0102030405060708090a");
    expect(decodeGatewayMemo(memo)).toEqual({ fingerprint: "0x0102030405060708090a", nonce: 0x11223344556677n });
  });

  it("pads small nonces and rejects bad input", () => {
    expect(encodeGatewayMemo("0x00000000000000000001", 1n).slice(2 + 46 * 1, 2 + 60)).toBe("00000000000001");
    expect(() => encodeGatewayMemo("0x0102", 1n)).toThrow(/10 bytes/);
    expect(() => encodeGatewayMemo("0x0102030405060708090a", 1n << 56n)).toThrow(/7 bytes/);
    expect(() => encodeGatewayMemo("0x0102030405060708090a", -1n)).toThrow(/7 bytes/);
  });

  it("does not decode text memos", () => {
    expect(decodeGatewayMemo(stringToHex("inv-123", { size: 32 }))).toBeNull();
  });
});
