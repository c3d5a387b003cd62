import { describe, expect, it } from "vitest";
import { isAddress, normalizeAddress } from "./normalizeAddress.ts";

describe("normalizeAddress", () => {
  it("lowercases mixed-case addresses", () => {
    expect(normalizeAddress("0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  });
  it.each(["", "0x", "0x123", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266", 42, null])("rejects %j", (v) => {
    expect(isAddress(v)).toBe(false);
    expect(() => normalizeAddress(v)).toThrow(/not an address/);
  });
});
