import { TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC } from "./constants.ts";
import { parseMppMemo } from "./parseMppMemo.ts";
import type { RawLog } from "./types.ts";

/**
 * The logs worth keeping: every log of each transaction in which some Transfer/TransferWithMemo has a
 * watched wallet as sender or recipient (so a Settlement or fee log of that transaction is kept too,
 * and the transaction can be re-matched later under other rules), or — when `isKnownServerId` is given
 * (methodology v0.3: a service known only by its MPP server ids) — a TransferWithMemo whose memo (topic 3)
 * is an MPP memo carrying a serverId it knows. Order is preserved.
 */
export function selectWatchedLogs(logs: readonly RawLog[], isWatched: (address: string) => boolean, isKnownServerId?: (serverId: string) => boolean): RawLog[] {
  const watchedTx = new Set<string>();
  for (const log of logs) {
    const t0 = log.topics[0]?.toLowerCase();
    if (t0 !== TRANSFER_TOPIC && t0 !== TRANSFER_WITH_MEMO_TOPIC) continue;
    const from = log.topics[1];
    const to = log.topics[2];
    if ((from && isWatched(`0x${from.slice(26).toLowerCase()}`)) || (to && isWatched(`0x${to.slice(26).toLowerCase()}`))) {
      watchedTx.add(log.txHash.toLowerCase());
    } else if (isKnownServerId && t0 === TRANSFER_WITH_MEMO_TOPIC) {
      const memo = parseMppMemo(log.topics[3] ?? null);
      if (memo && isKnownServerId(memo.serverId)) watchedTx.add(log.txHash.toLowerCase());
    }
  }
  return watchedTx.size === 0 ? [] : logs.filter((log) => watchedTx.has(log.txHash.toLowerCase()));
}
