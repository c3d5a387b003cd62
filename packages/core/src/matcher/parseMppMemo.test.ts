import { concat, keccak256, slice, stringToHex, toBytes, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { MPP_MEMO_TAG, MPP_MEMO_VERSION } from "./constants.ts";
import { parseMppMemo } from "./parseMppMemo.ts";

const fingerprint = (s: string) => slice(keccak256(toBytes(s)), 0, 10);
// The memo as mppx `src/tempo/Attribution.ts` encode() builds it (core does not depend on mppx; same layout, from viem).
const Attribution = {
  encode: ({ challengeId, clientId, serverId }: { challengeId: string; clientId?: string; serverId: string }): Hex =>
    concat([
      slice(keccak256(toBytes("mpp")), 0, 4),
      "0x01",
      fingerprint(serverId),
      clientId ? fingerprint(clientId) : `0x${"00".repeat(10)}`,
      slice(keccak256(toBytes(challengeId)), 0, 7),
    ]),
};

describe("parseMppMemo", () => {
  it("the tag is keccak256('mpp')[0..3] and the version 01", () => {
    expect(MPP_MEMO_TAG).toBe(slice(keccak256(toBytes("mpp")), 0, 4));
    expect(MPP_MEMO_VERSION).toBe("01");
  });

  it("reads serverId, clientId and nonce of a memo laid out as mppx encodes it", () => {
    const memo = Attribution.encode({ challengeId: "challenge-1", clientId: "ledger-probe", serverId: "fal.mpp.tempo.xyz" });
    expect(parseMppMemo(memo)).toEqual({
      serverId: "0x8bdbf8cc304c4816750e", // keccak256("fal.mpp.tempo.xyz")[0..9], pellet's fp_8bdbf8cc304c4816750e
      clientId: fingerprint("ledger-probe"),
      nonce: slice(keccak256(toBytes("challenge-1")), 0, 7),
    });
    expect(parseMppMemo(memo)!.serverId).toBe(fingerprint("fal.mpp.tempo.xyz"));
  });

  it("an anonymous client (10 zero bytes) has no clientId; upper case is read as lower case", () => {
    const memo = Attribution.encode({ challengeId: "c", serverId: "fal.mpp.tempo.xyz" });
    expect(parseMppMemo(memo)).toMatchObject({ serverId: "0x8bdbf8cc304c4816750e", clientId: null });
    expect(parseMppMemo(`0x${memo.slice(2).toUpperCase()}`)).toEqual(parseMppMemo(memo));
  });

  it("anything else is not an MPP memo", () => {
    const memo = Attribution.encode({ challengeId: "c", serverId: "s" });
    expect(parseMppMemo(null)).toBeNull();
    expect(parseMppMemo(stringToHex("invoice 42", { size: 32 }))).toBeNull(); // a plain memo
    expect(parseMppMemo(`0xef1ed71202${memo.slice(12)}`)).toBeNull(); // another version
    expect(parseMppMemo(`0xef1ed713${memo.slice(10)}`)).toBeNull(); // another tag
    expect(parseMppMemo(memo.slice(0, 64))).toBeNull(); // 31 bytes
    expect(parseMppMemo(`${memo}00`)).toBeNull(); // 33 bytes
    expect(parseMppMemo(`${memo.slice(0, 65)}g`)).toBeNull(); // not hex
  });
});
