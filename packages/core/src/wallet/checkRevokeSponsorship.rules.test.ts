import { encodeFunctionData, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";
import { checkRevokeSponsorship } from "./checkRevokeSponsorship.ts";
import type { SponsorCandidate } from "./checkSponsorship.ts";

// Boundaries checkRevokeSponsorship.test.ts leaves open: the gas limit at 0 and exactly at the cap, a gas limit that is
// no number, a transaction that names no chain, and a call without a `to` (refused, never a crash).
const keyA = "0x3008dc227c1e9e69390e6b270abe809097b69fae";
const user = "0x76c1ad63902ec4ea90e967bc82bb20b4db9befff";
const e = { revocableKeys: [keyA], chainId: 31337, maxGas: 3_000_000n };
const revoke = {
  to: ACCOUNT_KEYCHAIN_ADDRESS,
  value: 0n,
  data: encodeFunctionData({ abi: Abis.accountKeychain, functionName: "revokeKey", args: [keyA as Hex] }),
};
const tx = (extra: Partial<SponsorCandidate> = {}): SponsorCandidate => ({ from: user, chainId: 31337, gas: 500_000n, calls: [revoke], ...extra });

describe("checkRevokeSponsorship: gas and chain boundaries", () => {
  it("refuses a gas limit of 0 or one that is no number; takes exactly the cap", () => {
    expect(checkRevokeSponsorship(tx({ gas: 0n }), e)).toBe("the transaction has no gas limit");
    expect(checkRevokeSponsorship(tx({ gas: "lots" }), e)).toBe("the transaction has no gas limit");
    expect(checkRevokeSponsorship(tx({ gas: 3_000_000n }), e)).toBeNull();
    expect(checkRevokeSponsorship(tx({ gas: "3000001" }), e)).toBe("the gas limit 3000001 is above 3000000");
  });

  it("a transaction that names no chain is not refused for its chain", () => {
    expect(checkRevokeSponsorship(tx({ chainId: undefined }), e)).toBeNull();
    expect(checkRevokeSponsorship(tx({ chainId: "0x7a69" }), e)).toBeNull();
  });

  it("refuses a call without a recipient instead of throwing", () => {
    expect(checkRevokeSponsorship(tx({ calls: [{ data: revoke.data, value: 0n }] }), e)).toBe("the transaction is not a revoke of an agent key");
    expect(checkRevokeSponsorship(tx({ calls: [{ to: null, data: revoke.data }] }), e)).toBe("the transaction is not a revoke of an agent key");
  });
});
