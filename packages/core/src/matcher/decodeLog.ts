import { SETTLEMENT_TOPIC, SETTLEMENT_TOPIC_MAINNET, TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC } from "./constants.ts";
import type { RawLog } from "./types.ts";

export type DecodedLog =
  | { type: "transfer"; token: string; from: string; to: string; amount: bigint; memo: null; logIndex: number }
  | { type: "transferWithMemo"; token: string; from: string; to: string; amount: bigint; memo: string; logIndex: number }
  | { type: "settlement"; contract: string; sessionRef: string; provider: string; gateway: string; amountIn: bigint; amountOut: bigint; logIndex: number };

const WORD = /^0x[0-9a-fA-F]{64}$/;

/** The address held in the low 20 bytes of an indexed topic, lowercase; null if the topic is not a padded address. */
function topicAddress(topic: string | undefined): string | null {
  if (topic === undefined || !WORD.test(topic)) return null;
  if (!/^0x0{24}/.test(topic)) return null;
  return `0x${topic.slice(26).toLowerCase()}`;
}

/** The n-th 32-byte word of ABI data as bigint; null if the data is too short or not hex. */
function dataWord(data: string, n: number): bigint | null {
  const start = 2 + n * 64;
  if (!data.startsWith("0x") || data.length < start + 64) return null;
  const hex = data.slice(start, start + 64);
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  return BigInt(`0x${hex}`);
}

/**
 * Decodes the three log shapes the ledger reads. Anything else — other events, or a log whose topics
 * or data do not have the exact shape (e.g. an ERC-721 Transfer with 4 topics) — decodes to null.
 */
export function decodeLog(log: RawLog): DecodedLog | null {
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 === TRANSFER_TOPIC) {
    if (log.topics.length !== 3) return null;
    const from = topicAddress(log.topics[1]);
    const to = topicAddress(log.topics[2]);
    const amount = dataWord(log.data, 0);
    if (from === null || to === null || amount === null || log.data.length !== 66) return null;
    return { type: "transfer", token: log.address.toLowerCase(), from, to, amount, memo: null, logIndex: log.logIndex };
  }
  if (topic0 === TRANSFER_WITH_MEMO_TOPIC) {
    if (log.topics.length !== 4 || !WORD.test(log.topics[3] ?? "")) return null;
    const from = topicAddress(log.topics[1]);
    const to = topicAddress(log.topics[2]);
    const amount = dataWord(log.data, 0);
    if (from === null || to === null || amount === null || log.data.length !== 66) return null;
    return { type: "transferWithMemo", token: log.address.toLowerCase(), from, to, amount, memo: log.topics[3]!.toLowerCase(), logIndex: log.logIndex };
  }
  if (topic0 === SETTLEMENT_TOPIC || topic0 === SETTLEMENT_TOPIC_MAINNET) {
    if (log.topics.length !== 4 || !WORD.test(log.topics[1] ?? "")) return null;
    const provider = topicAddress(log.topics[2]);
    const gateway = topicAddress(log.topics[3]);
    const amountIn = dataWord(log.data, 0);
    const amountOut = dataWord(log.data, 1);
    if (provider === null || gateway === null || amountIn === null || amountOut === null || log.data.length !== 130) return null;
    return {
      type: "settlement",
      contract: log.address.toLowerCase(),
      sessionRef: log.topics[1]!.toLowerCase(),
      provider,
      gateway,
      amountIn,
      amountOut,
      logIndex: log.logIndex,
    };
  }
  return null;
}
