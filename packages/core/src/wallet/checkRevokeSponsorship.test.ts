import { encodeFunctionData, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";
import { checkRevokeSponsorship, type RevokeExpectation } from "./checkRevokeSponsorship.ts";
import type { SponsorCandidate } from "./checkSponsorship.ts";

const keyA = "0x3008dc227c1e9e69390e6b270abe809097b69fae";
const keyB = "0x1111111111111111111111111111111111111111";
const other = "0x2222222222222222222222222222222222222222";
const token = "0x20c0000000000000000000000000000000000000";
const user = "0x76c1ad63902ec4ea90e967bc82bb20b4db9befff";
const e = { revocableKeys: [keyA, keyB], chainId: 31337, maxGas: 3_000_000n };
const revoke = (key: string) => ({
  to: ACCOUNT_KEYCHAIN_ADDRESS,
  value: 0n,
  data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "revokeKey", args: [key as Hex] }),
});
const tx = (calls: SponsorCandidate["calls"], extra: Partial<SponsorCandidate> = {}): SponsorCandidate => ({
  from: user,
  chainId: 31337,
  gas: 500_000n,
  calls,
  ...extra,
});

describe("checkRevokeSponsorship", () => {
  it("sponsors a revokeKey of one of the owner's revoked sessions' keys, or several in one transaction", () => {
    expect(checkRevokeSponsorship(tx([revoke(keyA)]), e)).toBeNull();
    expect(checkRevokeSponsorship(tx([revoke(keyA), revoke(keyB)]), e)).toBeNull();
  });
  it.each([
    ["another key", tx([revoke(other)]), /not one of the owner's/],
    ["nothing revocable", tx([revoke(keyA)]), /not one of the owner's/, { ...e, revocableKeys: [] }],
    ["the same key twice", tx([revoke(keyA), revoke(keyA)]), /twice/],
    [
      "a revoke plus a transfer",
      tx([revoke(keyA), { to: token, value: 0n, data: encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [other as Hex, 1n] }) }]),
      /not a revoke/,
    ],
    [
      "a plain transfer",
      tx([{ to: token, data: encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [other as Hex, 1n] }) }]),
      /not a revoke/,
    ],
    [
      "authorizeKey",
      tx([
        {
          to: ACCOUNT_KEYCHAIN_ADDRESS,
          data: encodeFunctionData({
            abi: Abis.accountKeychain,
            functionName: "authorizeKey",
            args: [keyA as Hex, 0, 1n, true, [{ token: token as Hex, amount: 1n }]],
          } as never),
        },
      ]),
      /authorizeKey is not sponsored/,
    ],
    [
      "updateSpendingLimit",
      tx([
        {
          to: ACCOUNT_KEYCHAIN_ADDRESS,
          data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "updateSpendingLimit", args: [keyA as Hex, token as Hex, 10n] } as never),
        },
      ]),
      /updateSpendingLimit is not sponsored/,
    ],
    ["garbage to the keychain", tx([{ to: ACCOUNT_KEYCHAIN_ADDRESS, data: "0xdeadbeef" }]), /does not decode/],
    ["value", tx([{ ...revoke(keyA), value: 1n }]), /value/],
    ["no calls", tx([]), /not a revoke/],
    ["no calls at all", tx(null), /not a revoke/],
    [
      "a key authorization attached",
      tx([revoke(keyA)], { keyAuthorization: { address: other, expiry: 1, limits: [{ token, limit: 1n }], type: "secp256k1" } }),
      /no key authorization/,
    ],
    ["too much gas", tx([revoke(keyA)], { gas: 3_000_001n }), /gas limit/],
    ["no gas", tx([revoke(keyA)], { gas: null }), /no gas/],
    ["another chain", tx([revoke(keyA)], { chainId: 1 }), /wrong chain/],
  ] as [string, SponsorCandidate, RegExp, RevokeExpectation?][])("refuses %s", (_name, candidate, reason, expectation = e) => {
    expect(checkRevokeSponsorship(candidate, expectation)).toMatch(reason);
  });
});
