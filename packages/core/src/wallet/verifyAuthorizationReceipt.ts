import { decodeEventLog, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";

export type ReceiptLike = {
  status: string;
  from: string;
  logs: readonly { address: string; topics: readonly Hex[] | readonly string[]; data: string }[];
};
export type AuthorizationRefusal = "transaction_failed" | "wrong_sender" | "other_key_authorized" | "key_not_authorized";
export type AuthorizationCheck = { ok: true; expiry: bigint; signatureType: number } | { ok: false; reason: AuthorizationRefusal; message: string };

const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Accepts a receipt as the on-chain authorization of `agentKey` for `account` only when the transaction
 * succeeded, was sent by `account`, and the AccountKeychain precompile emitted
 * `KeyAuthorized{ account, publicKey: agentKey }`. The receipt's `to` is not used: viem's authorize
 * attaches the key authorization to a transaction whose call goes to 0x0…0.
 */
export function verifyAuthorizationReceipt(receipt: ReceiptLike, expected: { account: string; agentKey: string }): AuthorizationCheck {
  if (receipt.status !== "success") return { ok: false, reason: "transaction_failed", message: "the transaction did not succeed" };
  if (!eq(receipt.from, expected.account)) {
    return {
      ok: false,
      reason: "wrong_sender",
      message: `the transaction was sent by ${receipt.from.toLowerCase()}, not by ${expected.account.toLowerCase()}`,
    };
  }
  const fromKeychain = receipt.logs.filter((l) => eq(l.address, ACCOUNT_KEYCHAIN_ADDRESS));
  const events: { account: string; publicKey: string; signatureType: number; expiry: bigint }[] = [];
  for (const l of fromKeychain) {
    try {
      const ev = decodeEventLog({ abi: Abis.accountKeychain, topics: [...l.topics] as [Hex, ...Hex[]], data: l.data as Hex, strict: true });
      if (ev.eventName === "KeyAuthorized") events.push({ ...ev.args, signatureType: Number(ev.args.signatureType), expiry: BigInt(ev.args.expiry) });
    } catch {
      // another keychain event, or not decodable: not an authorization
    }
  }
  const mine = events.filter((e) => eq(e.account, expected.account));
  const match = mine.find((e) => eq(e.publicKey, expected.agentKey));
  if (match) return { ok: true, expiry: match.expiry, signatureType: match.signatureType };
  if (mine.length > 0) {
    return {
      ok: false,
      reason: "other_key_authorized",
      message: `the transaction authorized ${mine[0]!.publicKey.toLowerCase()}, not the agent key ${expected.agentKey.toLowerCase()}`,
    };
  }
  return { ok: false, reason: "key_not_authorized", message: "the transaction emitted no KeyAuthorized event of the AccountKeychain for this account" };
}
