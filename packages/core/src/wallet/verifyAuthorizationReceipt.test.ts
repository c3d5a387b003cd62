import { encodeAbiParameters, encodeEventTopics, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { ACCOUNT_KEYCHAIN_ADDRESS } from "./constants.ts";
import { verifyAuthorizationReceipt } from "./verifyAuthorizationReceipt.ts";

const user = "0x76c1ad63902ec4ea90e967bc82bb20b4db9befff";
const agent = "0x3008dc227c1e9e69390e6b270abe809097b69fae";
const other = "0x00000000000000000000000000000000000000b2";

function keyAuthorized(account: string, publicKey: string, address: string = ACCOUNT_KEYCHAIN_ADDRESS) {
  const topics = encodeEventTopics({ abi: Abis.accountKeychain, eventName: "KeyAuthorized", args: { account: account as Hex, publicKey: publicKey as Hex } });
  return { address, topics: topics as Hex[], data: encodeAbiParameters([{ type: "uint8" }, { type: "uint64" }], [0, 1795332156n]) };
}
const receipt = (over: Partial<{ status: string; from: string; logs: ReturnType<typeof keyAuthorized>[] }> = {}) => ({
  status: "success",
  from: user.toUpperCase().replace("0X", "0x"),
  logs: [keyAuthorized(user, agent)],
  ...over,
});

describe("verifyAuthorizationReceipt", () => {
  it("accepts success + sender + KeyAuthorized{account, agent key} from the keychain", () => {
    expect(verifyAuthorizationReceipt(receipt(), { account: user, agentKey: agent })).toEqual({ ok: true, expiry: 1795332156n, signatureType: 0 });
  });
  it("refuses a failed transaction", () => {
    expect(verifyAuthorizationReceipt(receipt({ status: "reverted" }), { account: user, agentKey: agent })).toMatchObject({
      ok: false,
      reason: "transaction_failed",
    });
  });
  it("refuses another sender", () => {
    expect(verifyAuthorizationReceipt(receipt({ from: other }), { account: user, agentKey: agent })).toMatchObject({ ok: false, reason: "wrong_sender" });
  });
  it("refuses an authorization of another key", () => {
    expect(verifyAuthorizationReceipt(receipt({ logs: [keyAuthorized(user, other)] }), { account: user, agentKey: agent })).toMatchObject({
      ok: false,
      reason: "other_key_authorized",
    });
  });
  it("ignores look-alike events from another contract and events for another account", () => {
    expect(verifyAuthorizationReceipt(receipt({ logs: [keyAuthorized(user, agent, other)] }), { account: user, agentKey: agent })).toMatchObject({
      ok: false,
      reason: "key_not_authorized",
    });
    expect(verifyAuthorizationReceipt(receipt({ logs: [keyAuthorized(other, agent)] }), { account: user, agentKey: agent })).toMatchObject({
      ok: false,
      reason: "key_not_authorized",
    });
    expect(verifyAuthorizationReceipt(receipt({ logs: [] }), { account: user, agentKey: agent })).toMatchObject({ ok: false, reason: "key_not_authorized" });
  });

  it("reads the keychain address case-insensitively and finds the agent key among several authorizations", () => {
    const checksummed = { ...keyAuthorized(user, agent), address: ACCOUNT_KEYCHAIN_ADDRESS.toUpperCase().replace("0X", "0x") };
    expect(verifyAuthorizationReceipt(receipt({ logs: [checksummed] }), { account: user, agentKey: agent })).toMatchObject({ ok: true });
    const p256 = { ...keyAuthorized(user, agent), data: encodeAbiParameters([{ type: "uint8" }, { type: "uint64" }], [1, 2n ** 64n - 1n]) };
    expect(
      verifyAuthorizationReceipt(receipt({ logs: [keyAuthorized(user, other), p256] }), { account: user, agentKey: agent.toUpperCase().replace("0X", "0x") }),
    ).toEqual({
      ok: true,
      expiry: 2n ** 64n - 1n,
      signatureType: 1,
    });
  });
  it("does not take another keychain event, or an undecodable KeyAuthorized, for the authorization", () => {
    const other_event = (eventName: "KeyRevoked" | "AdminKeyAuthorized") => ({
      address: ACCOUNT_KEYCHAIN_ADDRESS,
      topics: encodeEventTopics({ abi: Abis.accountKeychain, eventName, args: { account: user as Hex, publicKey: agent as Hex } }) as Hex[],
      data: "0x" as Hex,
    });
    for (const log of [other_event("KeyRevoked"), other_event("AdminKeyAuthorized")]) {
      expect(verifyAuthorizationReceipt(receipt({ logs: [log] }), { account: user, agentKey: agent })).toMatchObject({
        ok: false,
        reason: "key_not_authorized",
      });
    }
    const good = keyAuthorized(user, agent);
    const short = { ...good, data: good.data.slice(0, 66) as Hex };
    const noTopics = { ...good, topics: [] as Hex[] };
    for (const log of [short, noTopics]) {
      expect(verifyAuthorizationReceipt(receipt({ logs: [log] }), { account: user, agentKey: agent })).toMatchObject({
        ok: false,
        reason: "key_not_authorized",
      });
    }
    // an undecodable keychain log before the real one does not hide it
    expect(verifyAuthorizationReceipt(receipt({ logs: [short, good] }), { account: user, agentKey: agent })).toMatchObject({ ok: true });
  });
  it("says in its refusals who sent the transaction and which key it authorized, lowercase", () => {
    expect(verifyAuthorizationReceipt(receipt({ status: "reverted" }), { account: user, agentKey: agent })).toEqual({
      ok: false,
      reason: "transaction_failed",
      message: "the transaction did not succeed",
    });
    expect(
      verifyAuthorizationReceipt(receipt({ from: other.toUpperCase().replace("0X", "0x") }), {
        account: user.toUpperCase().replace("0X", "0x"),
        agentKey: agent,
      }),
    ).toEqual({
      ok: false,
      reason: "wrong_sender",
      message: `the transaction was sent by ${other}, not by ${user}`,
    });
    expect(
      verifyAuthorizationReceipt(receipt({ logs: [keyAuthorized(user, other)] }), { account: user, agentKey: agent.toUpperCase().replace("0X", "0x") }),
    ).toEqual({
      ok: false,
      reason: "other_key_authorized",
      message: `the transaction authorized ${other}, not the agent key ${agent}`,
    });
    expect(verifyAuthorizationReceipt(receipt({ logs: [] }), { account: user, agentKey: agent })).toEqual({
      ok: false,
      reason: "key_not_authorized",
      message: "the transaction emitted no KeyAuthorized event of the AccountKeychain for this account",
    });
  });
});
