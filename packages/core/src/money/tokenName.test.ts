import { describe, expect, it } from "vitest";
import { tokenName } from "./tokenName.ts";

describe("tokenName", () => {
  it("names the well-known TIP-20 tokens in any letter case", () => {
    expect(tokenName("0x20c0000000000000000000000000000000000000")).toBe("pathUSD");
    expect(tokenName("0x20C0000000000000000000000000000000000001")).toBe("AlphaUSD");
    expect(tokenName("0x20c0000000000000000000000000000000000002")).toBe("BetaUSD");
    expect(tokenName("0x20c0000000000000000000000000000000000003")).toBe("ThetaUSD");
  });
  it("shortens other addresses and answers `none` for a missing one", () => {
    expect(tokenName("0xabcdef0000000000000000000000000000001234")).toBe("0xabcd…1234");
    expect(tokenName(null)).toBe("");
    expect(tokenName(undefined, "USD")).toBe("USD");
  });
});
