import { describe, expect, it } from "vitest";
import { decodeLog } from "./decodeLog.ts";
import type { RawLog } from "./types.ts";

// Known-answer vectors written out by hand from the ABI layout (topics: 32-byte words, an indexed address is
// left-padded with 12 zero bytes; data: one 32-byte word per non-indexed uint256), not produced by an encoder.
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TRANSFER_WITH_MEMO = "0x57bc7354aa85aed339e000bccffabbc529466af35f0772c8f8ee1145927de7f0";
const SETTLEMENT = "0x1c5bd824a83e6a261a40ebe83140faad843f622f4364a435f32d10ff9fdedd3f";
const SETTLEMENT_MAINNET = "0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51";

const FROM_TOPIC = "0x000000000000000000000000AaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaA1";
const TO_TOPIC = "0x000000000000000000000000bBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBb2";
const FROM = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const TO = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2";
const MEMO = "0xEF1ED71201AABBCCDDEEFF00112233440000000000000000000000000000FFFF";
// A session reference is any 32-byte word: its high bytes are not zero (it is not an address topic).
const SESSION = "0x5E55100000000000000000000000000000000000000000000000000000000001";
// 1,000,000 = 0xf4240 and 2^256 − 1 (the largest uint256) as data words.
const WORD_1M = "00000000000000000000000000000000000000000000000000000000000f4240";
const WORD_MAX = "f".repeat(64);
const WORD_9 = "0000000000000000000000000000000000000000000000000000000000000009";
const TOKEN = "0x20C0000000000000000000000000000000000001";

function log(topics: string[], data: string, address = TOKEN): RawLog {
  return {
    blockNumber: 7n,
    blockHash: "0x" + "cd".repeat(32),
    blockTimestamp: 1_790_000_000,
    txHash: "0x" + "ab".repeat(32),
    txIndex: 0,
    logIndex: 42,
    address,
    topics,
    data,
  };
}
const upper0x = (word: string) => "0x" + word.slice(2).toUpperCase();

describe("decodeLog: Transfer(address indexed from, address indexed to, uint256 amount)", () => {
  it("decodes the known vector: addresses from the low 20 bytes, amount from the data word, all lowercase", () => {
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M))).toEqual({
      type: "transfer",
      token: "0x20c0000000000000000000000000000000000001",
      from: FROM,
      to: TO,
      amount: 1_000_000n,
      memo: null,
      logIndex: 42,
    });
  });

  it("reads topic0 case-insensitively and the full uint256 range", () => {
    const d = decodeLog(log([upper0x(TRANSFER), FROM_TOPIC, TO_TOPIC], "0x" + WORD_MAX));
    expect(d).toMatchObject({ type: "transfer", amount: 2n ** 256n - 1n });
  });

  it("refuses any other number of topics (an ERC-721 Transfer has 4, an anonymous-looking one 2)", () => {
    expect(decodeLog(log([TRANSFER, FROM_TOPIC], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC, "0x" + WORD_9], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC, "0x" + WORD_9], ""))).toBeNull();
  });

  it("refuses data that is not exactly one 32-byte hex word", () => {
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M + WORD_9))).toBeNull(); // two words
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M.slice(2)))).toBeNull(); // 31 bytes
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "0x"))).toBeNull();
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "00" + WORD_1M))).toBeNull(); // 66 characters, no 0x
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "0x" + "g" + WORD_1M.slice(1)))).toBeNull(); // not hex
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M.slice(1) + "z"))).toBeNull();
  });

  it("refuses an address topic that is not a left-padded address word", () => {
    const bad = [
      "0x100000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", // a high byte set
      "0x000000000000000000000001aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", // the last padding byte set
      "0x000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", // 63 hex digits
      "0x000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa10", // 65 hex digits
      "0x000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaag", // not hex at the end
      "x0x000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", // something before 0x
      "00000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", // no 0x
    ];
    for (const topic of bad) {
      expect(decodeLog(log([TRANSFER, topic, TO_TOPIC], "0x" + WORD_1M)), topic).toBeNull();
      expect(decodeLog(log([TRANSFER, FROM_TOPIC, topic], "0x" + WORD_1M)), topic).toBeNull();
    }
  });

  it("decodes the zero address on either side (mint, burn)", () => {
    const zero = "0x" + "0".repeat(64);
    expect(decodeLog(log([TRANSFER, zero, TO_TOPIC], "0x" + WORD_1M))).toMatchObject({ from: "0x" + "0".repeat(40), to: TO });
    expect(decodeLog(log([TRANSFER, FROM_TOPIC, zero], "0x" + WORD_1M))).toMatchObject({ from: FROM, to: "0x" + "0".repeat(40) });
  });
});

describe("decodeLog: TransferWithMemo(address indexed from, address indexed to, uint256 amount, bytes32 indexed memo)", () => {
  it("decodes the known vector with the memo topic lowercase", () => {
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO], "0x" + WORD_1M))).toEqual({
      type: "transferWithMemo",
      token: "0x20c0000000000000000000000000000000000001",
      from: FROM,
      to: TO,
      amount: 1_000_000n,
      memo: MEMO.toLowerCase(),
      logIndex: 42,
    });
    expect(decodeLog(log([upper0x(TRANSFER_WITH_MEMO), FROM_TOPIC, TO_TOPIC, MEMO], "0x" + WORD_9))).toMatchObject({ type: "transferWithMemo", amount: 9n });
  });

  it("refuses 3 or 5 topics and a memo that is not a 32-byte word", () => {
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO, MEMO], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO.slice(0, 65)], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO + "0"], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, "x" + MEMO], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO.slice(0, 65) + "g"], "0x" + WORD_1M))).toBeNull();
  });

  it("refuses bad parties and data exactly as a Transfer does", () => {
    const high = "0x100000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
    expect(decodeLog(log([TRANSFER_WITH_MEMO, high, TO_TOPIC, MEMO], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, high, MEMO], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO], "0x" + WORD_1M + WORD_9))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO], "0x" + WORD_1M.slice(2)))).toBeNull();
    expect(decodeLog(log([TRANSFER_WITH_MEMO, FROM_TOPIC, TO_TOPIC, MEMO], "0x" + "z".repeat(64)))).toBeNull();
  });
});

describe("decodeLog: Settlement(bytes32 indexed sessionRef, address indexed provider, address indexed gateway, uint256 amountIn, uint256 amountOut)", () => {
  const ESCROW = "0x33B901018174DdaBE4841042ab76ba85D4e24F25";
  const data = "0x" + WORD_1M + WORD_9;

  it("decodes the known vector: provider topic 2, gateway topic 3, amountIn word 0, amountOut word 1", () => {
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC], data, ESCROW))).toEqual({
      type: "settlement",
      contract: "0x33b901018174ddabe4841042ab76ba85d4e24f25",
      sessionRef: SESSION.toLowerCase(),
      provider: FROM,
      gateway: TO,
      amountIn: 1_000_000n,
      amountOut: 9n,
      logIndex: 42,
    });
  });

  it("reads the mainnet topic0 with the same layout, case-insensitively", () => {
    expect(decodeLog(log([upper0x(SETTLEMENT_MAINNET), SESSION, TO_TOPIC, FROM_TOPIC], "0x" + WORD_9 + WORD_MAX, ESCROW))).toMatchObject({
      type: "settlement",
      provider: TO,
      gateway: FROM,
      amountIn: 9n,
      amountOut: 2n ** 256n - 1n,
    });
    expect(decodeLog(log([upper0x(SETTLEMENT), SESSION, TO_TOPIC, FROM_TOPIC], data, ESCROW))).toMatchObject({ type: "settlement" });
  });

  it("refuses any other topic count, a session that is not a word, and bad address topics", () => {
    const high = "0x100000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC, MEMO], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION.slice(0, 65), FROM_TOPIC, TO_TOPIC], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION + "1", FROM_TOPIC, TO_TOPIC], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, "x" + SESSION, FROM_TOPIC, TO_TOPIC], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION.slice(0, 65) + "g", FROM_TOPIC, TO_TOPIC], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, high, TO_TOPIC], data))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, high], data))).toBeNull();
  });

  it("refuses data that is not exactly two 32-byte hex words", () => {
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M + WORD_9.slice(2)))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M + WORD_9 + WORD_9))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M + "z".repeat(64)))).toBeNull();
    expect(decodeLog(log([SETTLEMENT, SESSION, FROM_TOPIC, TO_TOPIC], "0x" + "z".repeat(64) + WORD_9))).toBeNull();
  });
});

describe("decodeLog: everything else", () => {
  it("is null for other events, no topics, and a topic0 that only starts like a known one", () => {
    expect(decodeLog(log(["0x" + "12".repeat(32), FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([], "0x" + WORD_1M))).toBeNull();
    expect(decodeLog(log([TRANSFER + "00", FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M))).toBeNull();
  });

  it("is null for an unknown event with exactly the Settlement shape (4 topics, two data words)", () => {
    const unknown = "0x" + "34".repeat(32);
    expect(decodeLog(log([unknown, SESSION, FROM_TOPIC, TO_TOPIC], "0x" + WORD_1M + WORD_9))).toBeNull();
    expect(decodeLog(log([unknown, FROM_TOPIC, TO_TOPIC, MEMO], "0x" + WORD_1M))).toBeNull();
  });
});
