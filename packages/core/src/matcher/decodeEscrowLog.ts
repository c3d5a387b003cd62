import { LEGACY_ESCROW_TOPICS, PRECOMPILE_ESCROW_TOPICS } from "./constants.ts";
import type { EscrowInfo, RawLog } from "./types.ts";

/** Fields every session escrow event has: the emitting escrow, topic1 channel, topic2 payer, topic3 payee. */
interface EscrowEventBase {
  escrow: string;
  channelId: string;
  payer: string;
  payee: string;
  logIndex: number;
}

/** A decoded event of an MPP session escrow (legacy TempoStreamChannel or the TIP-1034 precompile); amounts exact. */
export type EscrowEvent =
  | (EscrowEventBase & { type: "channelOpened"; token: string; deposit: bigint })
  | (EscrowEventBase & { type: "topUp"; additionalDeposit: bigint; newDeposit: bigint })
  | (EscrowEventBase & { type: "settled"; cumulativeAmount: bigint; deltaPaid: bigint; newSettled: bigint })
  | (EscrowEventBase & { type: "closeRequested"; closeGraceEnd: bigint })
  | (EscrowEventBase & { type: "closeRequestCancelled" })
  /** `settledToPayee` is the channel's cumulative settled total, not what the close paid (docs/methodology.md v0.3). */
  | (EscrowEventBase & { type: "channelClosed"; settledToPayee: bigint; refundedToPayer: bigint })
  | (EscrowEventBase & { type: "channelExpired" });

const WORD = /^0x[0-9a-f]{64}$/;
const ADDRESS_WORD = /^0x0{24}[0-9a-f]{40}$/;
const UINT96_WORD = /^0{40}[0-9a-f]{24}$/;

/** The data's 32-byte words (hex, no prefix), or null unless the data is exactly `n` words of hex. */
function words(data: string, n: number): string[] | null {
  const d = data.toLowerCase();
  if (d.length !== 2 + 64 * n || !/^0x[0-9a-f]*$/.test(d)) return null;
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(d.slice(2 + 64 * i, 66 + 64 * i));
  return out;
}

/** The address in the low 20 bytes of a data word (64 hex, no prefix). */
const address = (word: string) => `0x${word.slice(24)}`;
/** The address in an indexed topic (`0x` + 64 hex). */
const topicAddress = (topic: string) => `0x${topic.slice(26)}`;

/**
 * Decodes one log of a session escrow by its real ABI (`abi` from the registry): legacy TempoStreamChannel events
 * (amounts uint256; mppx `src/tempo/legacy/session/escrow.abi.ts`) or the TIP-1034 precompile's (amounts uint96,
 * each ABI-encoded in a 32-byte word whose upper 20 bytes must be zero; tempoxyz/tempo
 * `crates/contracts/src/precompiles/tip20_channel_reserve.rs`). Topics: 1 = channelId, 2 = payer, 3 = payee.
 * Data words in declaration order (legacy ChannelOpened: token, authorizedSigner, salt, deposit; precompile
 * ChannelOpened: operator, token, authorizedSigner, salt, expiringNonceHash, deposit). A log of another event, or
 * whose topics or data do not have exactly the declared shape, decodes to null.
 */
export function decodeEscrowLog(log: RawLog, abi: EscrowInfo["abi"]): EscrowEvent | null {
  if (log.topics.length !== 4) return null;
  const [t0, t1, t2, t3] = log.topics.map((t) => t.toLowerCase()) as [string, string, string, string];
  if (!WORD.test(t1) || !ADDRESS_WORD.test(t2) || !ADDRESS_WORD.test(t3)) return null;
  const base: EscrowEventBase = { escrow: log.address.toLowerCase(), channelId: t1, payer: topicAddress(t2), payee: topicAddress(t3), logIndex: log.logIndex };
  const T = abi === "legacy" ? LEGACY_ESCROW_TOPICS : PRECOMPILE_ESCROW_TOPICS;
  // An amount word: any uint256 for the legacy contract, a uint96 for the precompile.
  const amount = (w: string): bigint | null => (abi === "precompile" && !UINT96_WORD.test(w) ? null : BigInt(`0x${w}`));
  const isAddress = (w: string) => w.startsWith("0".repeat(24));
  switch (t0) {
    case T.channelOpened: {
      const w = words(log.data, abi === "legacy" ? 4 : 6);
      if (!w) return null;
      const [tokenWord, depositWord] = abi === "legacy" ? [w[0]!, w[3]!] : [w[1]!, w[5]!];
      const addressWords = abi === "legacy" ? [w[0]!, w[1]!] : [w[0]!, w[1]!, w[2]!];
      const deposit = amount(depositWord);
      if (deposit === null || !addressWords.every(isAddress)) return null;
      return { ...base, type: "channelOpened", token: address(tokenWord), deposit };
    }
    case T.topUp: {
      const w = words(log.data, 2);
      const [additionalDeposit, newDeposit] = w ? w.map(amount) : [];
      if (additionalDeposit == null || newDeposit == null) return null;
      return { ...base, type: "topUp", additionalDeposit, newDeposit };
    }
    case T.settled: {
      const w = words(log.data, 3);
      const [cumulativeAmount, deltaPaid, newSettled] = w ? w.map(amount) : [];
      if (cumulativeAmount == null || deltaPaid == null || newSettled == null) return null;
      return { ...base, type: "settled", cumulativeAmount, deltaPaid, newSettled };
    }
    case T.closeRequested: {
      const w = words(log.data, 1); // uint256 in both ABIs
      if (!w) return null;
      return { ...base, type: "closeRequested", closeGraceEnd: BigInt(`0x${w[0]}`) };
    }
    case T.closeRequestCancelled:
      return words(log.data, 0) ? { ...base, type: "closeRequestCancelled" } : null;
    case T.channelClosed: {
      const w = words(log.data, 2);
      const [settledToPayee, refundedToPayer] = w ? w.map(amount) : [];
      if (settledToPayee == null || refundedToPayer == null) return null;
      return { ...base, type: "channelClosed", settledToPayee, refundedToPayer };
    }
    case LEGACY_ESCROW_TOPICS.channelExpired:
      return abi === "legacy" && words(log.data, 0) ? { ...base, type: "channelExpired" } : null;
    default:
      return null;
  }
}
