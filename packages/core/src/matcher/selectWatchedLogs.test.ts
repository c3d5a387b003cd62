import { describe, expect, it } from "vitest";
import { SETTLEMENT_TOPIC, TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC } from "./constants.ts";
import { selectWatchedLogs } from "./selectWatchedLogs.ts";
import type { RawLog } from "./types.ts";

const pad = (a: string) => `0x${"0".repeat(24)}${a.slice(2)}`;
const W = "0x" + "a".repeat(40);
const X = "0x" + "b".repeat(40);
const log = (tx: string, logIndex: number, topics: string[]): RawLog => ({
  blockNumber: 1n,
  blockHash: "0x",
  blockTimestamp: 0,
  txHash: tx,
  txIndex: 0,
  logIndex,
  address: "0x" + "2".repeat(40),
  topics,
  data: "0x",
});

describe("selectWatchedLogs", () => {
  it("keeps all logs of transactions that touch a watched wallet, and nothing else", () => {
    const logs = [
      log("0x01", 0, [TRANSFER_TOPIC, pad(X), pad(X)]),
      log("0x02", 1, [SETTLEMENT_TOPIC, "0x" + "0".repeat(64), pad(X), pad(X)]),
      log("0x02", 2, [TRANSFER_TOPIC, pad(X), pad(W.toUpperCase().replace("0X", "0x"))]),
      log("0x03", 3, [TRANSFER_TOPIC, pad(X), pad(X)]),
    ];
    const kept = selectWatchedLogs(logs, (a) => a === W);
    expect(kept.map((l) => l.logIndex)).toEqual([1, 2]);
  });
  it("keeps a transaction where a watched wallet only sends, for Transfer and TransferWithMemo alike", () => {
    const memo = "0x" + "0".repeat(64);
    const logs = [
      log("0x0A", 0, [TRANSFER_TOPIC, pad(W), pad(X)]),
      log("0x0b", 1, [TRANSFER_WITH_MEMO_TOPIC.toUpperCase().replace("0X", "0x"), pad(W), pad(X), memo]),
      log("0x0a", 2, [SETTLEMENT_TOPIC, memo, pad(X), pad(X)]),
      log("0x0c", 3, [TRANSFER_TOPIC, pad(X), pad(X)]),
    ];
    expect(selectWatchedLogs(logs, (a) => a === W).map((l) => l.logIndex)).toEqual([0, 1, 2]);
  });
  it("reads the sender and recipient from topics 1 and 2 of Transfer logs only", () => {
    const logs = [
      log("0x01", 0, [SETTLEMENT_TOPIC, pad(W), pad(W), pad(W)]), // not a transfer: its topics are no parties
      log("0x02", 1, [TRANSFER_TOPIC]), // no parties at all
      log("0x03", 2, []),
      log("0x04", 3, [TRANSFER_TOPIC, pad(X), pad(X), pad(W)]), // topic 3 is a memo, not a party
    ];
    expect(selectWatchedLogs(logs, (a) => a === W)).toEqual([]);
    expect(selectWatchedLogs(logs, () => true).map((l) => l.logIndex)).toEqual([3]);
  });
  it("returns nothing when no wallet is watched", () => {
    expect(selectWatchedLogs([log("0x01", 0, [TRANSFER_TOPIC, pad(W), pad(X)])], () => false)).toEqual([]);
  });
  it("with a serverId predicate, also keeps a transaction whose TransferWithMemo carries a known MPP serverId (v0.3)", () => {
    const FAL = "8bdbf8cc304c4816750e"; // keccak256("fal.mpp.tempo.xyz")[0..9]
    const mpp = (serverId: string) => `0xef1ed71201${serverId}${"00".repeat(10)}${"ab".repeat(7)}`;
    const logs = [
      log("0x01", 0, [TRANSFER_TOPIC, pad(X), pad(X)]),
      log("0x01", 1, [TRANSFER_WITH_MEMO_TOPIC, pad(X), pad(X), mpp(FAL)]),
      log("0x01", 2, [SETTLEMENT_TOPIC, "0x" + "0".repeat(64), pad(X), pad(X)]),
      log("0x02", 3, [TRANSFER_WITH_MEMO_TOPIC, pad(X), pad(X), mpp("0102030405060708090a")]), // an unknown service
      log("0x03", 4, [TRANSFER_TOPIC, pad(X), pad(X), mpp(FAL)]), // not a TransferWithMemo: topic 3 is no memo
      log("0x04", 5, [TRANSFER_WITH_MEMO_TOPIC, pad(X), pad(X), `0xef1ed71202${FAL}${"00".repeat(17)}`]), // another memo version
      log("0x05", 6, [TRANSFER_WITH_MEMO_TOPIC, pad(X), pad(X)]), // no memo at all
    ];
    const known = (id: string) => id === `0x${FAL}`;
    expect(selectWatchedLogs(logs, () => false, known).map((l) => l.logIndex)).toEqual([0, 1, 2]);
    expect(selectWatchedLogs(logs, () => false)).toEqual([]); // existing callers: wallets only
    expect(selectWatchedLogs(logs, (a) => a === X, known).map((l) => l.logIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});
