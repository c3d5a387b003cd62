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

  it("gives the known address of a fixed key (private key 0x11…11, viem/tempo Account.fromP256) in every accepted spelling", () => {
    const xy = "0217e617f0b6443928278f96999e69a23a4f2c152bdf6d6cdf66e5b80282d4ed194a7debcb97712d2dda3ca85aa8765a56f45fc758599652f2897c65306e5794";
    const address = "0x9f2e642877a9411849763c250e5bb36cc57fedea";
    for (const key of [`0x${xy}`, `0X${xy}`, xy, `0x04${xy}`, `04${xy}`, `0x${xy.toUpperCase()}`, `0X04${xy.toUpperCase()}`]) {
      expect(passkeyAddress(key), key).toBe(address);
    }
  });
  it("refuses a 65-byte key whose prefix is not 04, a non-hex key, and text around the key", () => {
    const xy = "ab".repeat(64);
    for (const key of [`0x05${xy}`, `0x${xy.slice(2)}zz`, `x0x${xy}`, ` 0x${xy}`, `0x${xy}00`, `0x0x${xy}`]) {
      expect(() => passkeyAddress(key), key).toThrow(/expected an uncompressed P-256 public key/);
    }
  });
});

describe("passkeyAddress: prefixes", () => {
  it("reads a 64-byte key whose x begins with 04 as x‖y (the 04 is stripped only from the 65-byte form)", () => {
    let account = Account.fromP256(P256.randomPrivateKey());
    for (let i = 0; i < 10_000 && !account.publicKey.startsWith("0x04"); i++) account = Account.fromP256(P256.randomPrivateKey());
    expect(account.publicKey.startsWith("0x04")).toBe(true);
    expect(passkeyAddress(account.publicKey)).toBe(account.address.toLowerCase());
    expect(passkeyAddress(`0x04${account.publicKey.slice(2)}`)).toBe(account.address.toLowerCase());
  });
  it("strips 0x only as a prefix: a key with 0x inside is refused", () => {
    const xy = Account.fromP256(P256.randomPrivateKey()).publicKey.slice(2);
    expect(() => passkeyAddress(`${xy.slice(0, 10)}0x${xy.slice(10)}`)).toThrow(/uncompressed P-256/);
  });
});
