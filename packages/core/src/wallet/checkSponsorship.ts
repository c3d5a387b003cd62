import { decodeFunctionData, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";

type Num = bigint | number | string;
/** The parts of a (filled or signed) Tempo transaction the sponsorship policy reads, as viem hands them to `validate`. */
export type SponsorCandidate = {
  from?: string;
  chainId?: Num;
  gas?: Num | null;
  calls?: readonly { to?: string | null; data?: string | null; input?: string | null; value?: Num | null }[] | null;
  keyAuthorization?: {
    address: string;
    account?: string | null;
    chainId?: Num | null;
    expiry?: Num | null;
    limits?: readonly { token: string; limit?: Num; amount?: Num }[] | null;
    type?: string | number | null;
  } | null;
};
/** What the pending session allows: its agent key, token, caps, expiry; the chain; the gas ceiling. */
export type SponsorExpectation = { agentKey: string; chainId: number; token: string; spendCap: bigint; expiryUnix: number; maxGas: bigint };

const ZERO = "0x0000000000000000000000000000000000000000";
const eq = (a: string | null | undefined, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
const big = (v: Num | null | undefined): bigint | null => {
  if (v === null || v === undefined) return null;
  try {
    return BigInt(v);
  } catch {
    return null;
  }
};
const isEmptyData = (d: string | null | undefined) => d === undefined || d === null || d === "0x" || d === "";

function checkLimits(limits: readonly { token: string; limit?: Num; amount?: Num }[] | null | undefined, e: SponsorExpectation): string | null {
  if (!limits || limits.length === 0) return "the key authorization has no spending limit";
  for (const l of limits) {
    if (!eq(l.token, e.token)) return `the key authorization names token ${l.token}, not the session's token`;
    const amount = big(l.limit ?? l.amount);
    if (amount === null || amount > e.spendCap) return "the key authorization's limit exceeds the session's spend cap";
  }
  return null;
}

function checkExpiry(expiry: Num | null | undefined, e: SponsorExpectation): string | null {
  const x = big(expiry);
  if (x === null || x <= 0n) return "the key authorization has no expiry";
  if (x > BigInt(e.expiryUnix)) return "the key authorization outlives the session";
  return null;
}

/**
 * The relay's sponsorship policy for one pending session (pure part): null when the transaction is exactly
 * the authorization of the session's agent key, else the reason to refuse. Accepted shapes:
 * (a) a key authorization (TIP-1165 style, what viem's `accessKey.authorize` sends) for the agent key —
 *     secp256k1, this chain, expiry ≤ the session's, limits only on the session's token and ≤ its spend cap —
 *     with no calls other than empty no-ops; or
 * (b) one direct call to the AccountKeychain `authorizeKey(agentKey, 0 (secp256k1), …)` with the same
 *     expiry and limit rules and no value.
 * The gas limit must be at most `maxGas`.
 */
export function checkSponsorship(tx: SponsorCandidate, e: SponsorExpectation): string | null {
  const gas = big(tx.gas);
  if (gas === null || gas <= 0n) return "the transaction has no gas limit";
  if (gas > e.maxGas) return `the gas limit ${gas} is above ${e.maxGas}`;
  const chainId = big(tx.chainId);
  if (chainId !== null && chainId !== BigInt(e.chainId)) return "wrong chain";
  const calls = tx.calls ?? [];
  const ka = tx.keyAuthorization;
  if (ka) {
    if (!eq(ka.address, e.agentKey)) return "the key authorization is for another key";
    if (ka.account && tx.from && !eq(ka.account, tx.from)) return "the key authorization names another account";
    if (!(ka.type === "secp256k1" || ka.type === 0 || ka.type === "0")) return "the agent key must be a secp256k1 key";
    const kaChain = big(ka.chainId);
    if (kaChain !== null && kaChain !== 0n && kaChain !== BigInt(e.chainId)) return "the key authorization is for another chain";
    const bad = checkExpiry(ka.expiry, e) ?? checkLimits(ka.limits, e);
    if (bad) return bad;
    for (const c of calls) {
      const to = c.to ?? ZERO;
      const value = big(c.value) ?? 0n;
      if (!eq(to, ZERO) || !isEmptyData(c.data ?? c.input) || value !== 0n) return "only the key authorization is sponsored (no other calls)";
    }
    return null;
  }
  if (calls.length !== 1) return "the transaction is not an authorization of the agent key";
  const call = calls[0]!;
  if (!eq(call.to, ACCOUNT_KEYCHAIN_ADDRESS)) return "the transaction is not an authorization of the agent key";
  if ((big(call.value) ?? 0n) !== 0n) return "the authorization call carries value";
  let decoded: { functionName: string; args: readonly unknown[] };
  try {
    decoded = decodeFunctionData({ abi: Abis.accountKeychain, data: (call.data ?? call.input ?? "0x") as Hex }) as typeof decoded;
  } catch {
    return "the call to the AccountKeychain does not decode";
  }
  if (decoded.functionName !== "authorizeKey") return `${decoded.functionName} is not sponsored`;
  const [keyId, signatureType, third, enforceLimits, limits] = decoded.args as [string, number, unknown, unknown, unknown];
  if (!eq(keyId, e.agentKey)) return "the call authorizes another key";
  if (Number(signatureType) !== 0) return "the agent key must be a secp256k1 key";
  if (typeof third === "object" && third !== null) {
    // T4 form: authorizeKey(address, uint8, (uint64 expiry, bool enforceLimits, (address,uint256,uint64)[] limits, bool allowAnyCalls, …))
    const cfg = third as { expiry: Num; enforceLimits: boolean; limits: readonly { token: string; amount: Num }[] };
    if (!cfg.enforceLimits) return "the authorization must enforce limits";
    return checkExpiry(cfg.expiry, e) ?? checkLimits(cfg.limits, e);
  }
  // T0 form: authorizeKey(address, uint8, uint64 expiry, bool enforceLimits, (address,uint256)[] limits)
  if (enforceLimits !== true) return "the authorization must enforce limits";
  return checkExpiry(third as Num, e) ?? checkLimits(limits as readonly { token: string; amount: Num }[], e);
}
