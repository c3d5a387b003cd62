import { describe, expect, it } from "vitest";
import { SETTLEMENT_TOPIC, TRANSFER_TOPIC } from "./constants.ts";
import { selectWatchedLogs } from "./selectWatchedLogs.ts";
import type { RawLog } from "./types.ts";

const pad = (a: string) => `0x${"0".repeat(24)}${a.slice(2)}`;
const W = "0x" + "a".repeat(40);
const X = "0x" + "b".repeat(40);
const log = (tx: string, logIndex: number, topics: string[]): RawLog => ({
  blockNumber: 1n, blockHash: "0x", blockTimestamp: 0, txHash: tx, txIndex: 0, logIndex, address: "0x" + "2".repeat(40), topics, data: "0x",
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
});
