import { describe, expect, it } from "vitest";
import { InvalidAddressError } from "../errors.ts";
import { isAddress, normalizeAddress } from "./normalizeAddress.ts";

describe("normalizeAddress", () => {
  it("lowercases mixed-case addresses", () => {
    expect(normalizeAddress("0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  });
  it.each(["", "0x", "0x123", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266", 42, null])("rejects %j", (v) => {
    expect(isAddress(v)).toBe(false);
    expect(() => normalizeAddress(v)).toThrow(/not an address/);
  });
  it("anchors both ends: exactly 0x + 40 hex, nothing before or after", () => {
    const a = "f39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    for (const v of [`0x${a}0`, `0x${a}f`, `x0x${a}`, ` 0x${a}`, `0x${a} `, `0x${a}\n`, `0X${a}`, `00x${a}`, `0x${a.slice(1)}`]) {
      expect(isAddress(v), JSON.stringify(v)).toBe(false);
    }
    expect(isAddress(`0x${a}`)).toBe(true);
    expect(isAddress(`0x${a.toUpperCase()}`)).toBe(true);
    expect(normalizeAddress(`0x${a.toUpperCase()}`)).toBe(`0x${a}`);
  });
  it("names the bad value (cut to 80 characters) in a typed error", () => {
    expect(() => normalizeAddress("nope")).toThrow(InvalidAddressError);
    expect(() => normalizeAddress("nope")).toThrow('"nope" is not an address (0x followed by 40 hex characters)');
    try {
      normalizeAddress("z".repeat(200));
    } catch (e) {
      expect((e as InvalidAddressError).code).toBe("invalid_address");
      expect((e as InvalidAddressError).message).toContain(`"${"z".repeat(80)}"`);
      expect((e as InvalidAddressError).message).not.toContain("z".repeat(81));
    }
  });
  it("accepts only strings, not objects that print as an address", () => {
    const sneaky = { toString: () => "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" };
    expect(isAddress(sneaky)).toBe(false);
    expect(() => normalizeAddress(sneaky)).toThrow(InvalidAddressError);
  });
});
