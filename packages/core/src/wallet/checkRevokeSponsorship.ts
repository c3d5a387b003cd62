import { decodeFunctionData, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";
import type { SponsorCandidate } from "./checkSponsorship.ts";

/** What the owner may have revoked with sponsored gas: the agent keys of their sessions revoked in our database whose on-chain revoke is not confirmed. */
export type RevokeExpectation = { revocableKeys: readonly string[]; chainId: number; maxGas: bigint };

const big = (v: bigint | number | string | null | undefined): bigint | null => {
  if (v === null || v === undefined) return null;
  try {
    return BigInt(v);
  } catch {
    return null;
  }
};

/**
 * The relay's sponsorship policy for an owner's revoke (pure part, docs/wallet.md § Owner console): null when the
 * transaction is exactly one or more AccountKeychain `revokeKey(agentKey)` calls, each for a key in
 * `revocableKeys`, no key twice, no value, no key authorization attached, this chain, gas at most `maxGas`;
 * else the reason to refuse. Anything else (a transfer, authorizeKey, updateSpendingLimit, another key) is refused.
 */
export function checkRevokeSponsorship(tx: SponsorCandidate, e: RevokeExpectation): string | null {
  const gas = big(tx.gas);
  if (gas === null || gas <= 0n) return "the transaction has no gas limit";
  if (gas > e.maxGas) return `the gas limit ${gas} is above ${e.maxGas}`;
  const chainId = big(tx.chainId);
  if (chainId !== null && chainId !== BigInt(e.chainId)) return "wrong chain";
  if (tx.keyAuthorization) return "a revoke carries no key authorization";
  const calls = tx.calls ?? [];
  if (calls.length === 0) return "the transaction is not a revoke of an agent key";
  const allowed = new Set(e.revocableKeys.map((k) => k.toLowerCase()));
  const seen = new Set<string>();
  for (const call of calls) {
    if (typeof call.to !== "string" || call.to.toLowerCase() !== ACCOUNT_KEYCHAIN_ADDRESS) return "the transaction is not a revoke of an agent key";
    if ((big(call.value) ?? 0n) !== 0n) return "the revoke call carries value";
    let decoded: { functionName: string; args: readonly unknown[] };
    try {
      decoded = decodeFunctionData({ abi: Abis.accountKeychain, data: (call.data ?? call.input ?? "0x") as Hex }) as typeof decoded;
    } catch {
      return "the call to the AccountKeychain does not decode";
    }
    if (decoded.functionName !== "revokeKey") return `${decoded.functionName} is not sponsored`;
    const key = String(decoded.args[0]).toLowerCase();
    if (!allowed.has(key)) return "the call revokes a key that is not one of the owner's revoked sessions";
    if (seen.has(key)) return "the call revokes the same key twice";
    seen.add(key);
  }
  return null;
}
