import { describe, expect, it } from "vitest";
import { Account, P256 } from "viem/tempo";
import { passkeyAddress } from "./passkeyAddress.ts";

describe("passkeyAddress", () => {
  it("matches viem's Tempo P-256 account address for both key forms", () => {
    for (let i = 0; i < 5; i++) {
      const account = Account.fromP256(P256.randomPrivateKey());
      const xy = account.publicKey as string;
      expect(passkeyAddress(xy)).toBe(account.address.toLowerCase());
      expect(passkeyAddress(`0x04${xy.slice(2)}`)).toBe(account.address.toLowerCase());
    }
  });
  it("refuses other lengths", () => {
    expect(() => passkeyAddress("0x1234")).toThrow();
    expect(() => passkeyAddress(`0x02${"ab".repeat(32)}`)).toThrow();
  });
});
