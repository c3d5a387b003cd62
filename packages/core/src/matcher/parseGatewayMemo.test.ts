import { describe, expect, it } from "vitest";
import { parseGatewayMemo } from "./parseGatewayMemo.ts";

// Gateway memo (bytes32): ef1ed71201 magic (bytes 0–4) ‖ 10-byte fingerprint (bytes 5–14) ‖ zeros ‖ nonce.
describe("parseGatewayMemo", () => {
  it("reads the 10-byte fingerprint after the magic, lowercase, whatever the nonce", () => {
    expect(parseGatewayMemo("0xef1ed712010102030405060708090a0000000000000000000000000000000001")).toBe("0x0102030405060708090a");
    expect(parseGatewayMemo("0xEF1ED71201AABBCCDDEEFF00112233FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF")).toBe("0xaabbccddeeff00112233");
  });

  it("is null for no memo, another length, and a memo without the magic", () => {
    expect(parseGatewayMemo(null)).toBeNull();
    expect(parseGatewayMemo("")).toBeNull();
    expect(parseGatewayMemo("0xef1ed712010102030405060708090a00000000000000000000000000000000")).toBeNull(); // 31 bytes
    expect(parseGatewayMemo("0xef1ed712010102030405060708090a000000000000000000000000000000000100")).toBeNull(); // 33 bytes
    expect(parseGatewayMemo("0xef1ed712020102030405060708090a0000000000000000000000000000000001")).toBeNull(); // last magic byte differs
    expect(parseGatewayMemo("0x00ef1ed7120102030405060708090a0000000000000000000000000000000001")).toBeNull(); // magic not at byte 0
    expect(parseGatewayMemo("0x" + "00".repeat(32))).toBeNull();
  });
});
