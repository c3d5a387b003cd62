import { encodeFunctionData, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";
import { checkSponsorship, type SponsorCandidate } from "./checkSponsorship.ts";

const token = "0x20c0000000000000000000000000000000000000";
const agentKey = "0x3008dc227c1e9e69390e6b270abe809097b69fae";
const user = "0x76c1ad63902ec4ea90e967bc82bb20b4db9befff";
const e = { agentKey, chainId: 31337, token, spendCap: 50_000_000n, expiryUnix: 1_795_332_156, maxGas: 3_000_000n };
const viemStyle: SponsorCandidate = {
  from: user, chainId: 31337, gas: 2_000_000n,
  calls: [{ to: "0x0000000000000000000000000000000000000000", value: 0n, data: "0x" }],
  keyAuthorization: { address: agentKey, chainId: 31337n, expiry: 1_795_332_156, limits: [{ token, limit: 50_000_000n }], type: "secp256k1" },
};
const direct = (args: readonly unknown[]): SponsorCandidate => ({
  from: user, chainId: 31337, gas: 500_000n,
  calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS, value: 0n, data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "authorizeKey", args } as never) as Hex }],
});

describe("checkSponsorship", () => {
  it("sponsors viem's key authorization of the agent key", () => expect(checkSponsorship(viemStyle, e)).toBeNull());
  it("sponsors a direct authorizeKey call (T0 and T4 forms)", () => {
    expect(checkSponsorship(direct([agentKey, 0, 1_795_332_156n, true, [{ token, amount: 1n }]]), e)).toBeNull();
    expect(checkSponsorship(direct([agentKey, 0, { expiry: 1_795_332_156n, enforceLimits: true, limits: [{ token, amount: 5n, period: 0n }], allowAnyCalls: true, allowedCalls: [] }]), e)).toBeNull();
  });
  it.each([
    ["another key", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, address: user } }, /another key/],
    ["a p256 key", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, type: "p256" } }, /secp256k1/],
    ["a longer expiry", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, expiry: 1_795_332_157 } }, /outlives/],
    ["no expiry", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, expiry: null } }, /no expiry/],
    ["no limits", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, limits: [] } }, /no spending limit/],
    ["a higher limit", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, limits: [{ token, limit: 50_000_001n }] } }, /spend cap/],
    ["another token", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, limits: [{ token: agentKey, limit: 1n }] } }, /token/],
    ["another chain", { ...viemStyle, keyAuthorization: { ...viemStyle.keyAuthorization!, chainId: 1n } }, /chain/],
    ["a piggy-backed transfer", { ...viemStyle, calls: [{ to: token, data: "0xa9059cbb", value: 0n }] }, /no other calls/],
    ["too much gas", { ...viemStyle, gas: 3_000_001n }, /gas limit/],
    ["no gas", { ...viemStyle, gas: undefined }, /gas/],
    ["a plain transfer", { from: user, gas: 100_000n, calls: [{ to: token, data: "0xa9059cbb" }] }, /not an authorization/],
    ["two calls", { from: user, gas: 100_000n, calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS }, { to: ACCOUNT_KEYCHAIN_ADDRESS }] }, /not an authorization/],
  ] as [string, SponsorCandidate, RegExp][])("refuses %s", (_name, tx, reason) => expect(checkSponsorship(tx, e)).toMatch(reason));
  it("refuses direct calls that authorize another key, revoke, or skip limits", () => {
    expect(checkSponsorship(direct([user, 0, 1_795_332_156n, true, [{ token, amount: 1n }]]), e)).toMatch(/another key/);
    expect(checkSponsorship(direct([agentKey, 0, 1_795_332_156n, false, []]), e)).toMatch(/enforce limits/);
    expect(checkSponsorship(direct([agentKey, 1, 1_795_332_156n, true, [{ token, amount: 1n }]]), e)).toMatch(/secp256k1/);
    const revoke = { from: user, gas: 100_000n, calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS, data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "revokeKey", args: [agentKey] }) }] };
    expect(checkSponsorship(revoke, e)).toMatch(/not sponsored/);
    expect(checkSponsorship({ ...direct([agentKey, 0, 1n, true, []]), calls: [{ to: ACCOUNT_KEYCHAIN_ADDRESS, data: "0xdeadbeef" }] }, e)).toMatch(/does not decode/);
  });
});
