import type { EventKind } from "./constants.ts";
import type { EventDraft, Label, MatchContext, RawLog, WatchedEntity } from "./types.ts";

// What methodology v0.1 (matchLogs.ts) and v0.2 (matchLogsV02.ts) do alike: grouping by transaction, pairing a
// TransferWithMemo with its Transfer, labels, and building a row. Each version keeps only its own rules.

/** One value movement: a Transfer, merged with the TransferWithMemo that repeats it, if any. */
export interface Payment {
  logIndex: number;
  token: string;
  from: string;
  to: string;
  amount: bigint;
  memo: string | null;
}

/** A decoded Transfer (`isMemo` false, memo null) or TransferWithMemo (`isMemo` true) of one transaction. */
export interface TransferLeg extends Payment {
  isMemo: boolean;
}

export const NO_ROUTING = { routedToAddress: "", routedToLabel: "", routedFingerprint: null } as const;

/** The logs of each transaction, in first-seen order (the logs come in chain order). */
export function groupByTransaction(logs: readonly RawLog[]): RawLog[][] {
  const groups = new Map<string, RawLog[]>();
  for (const log of logs) {
    const key = log.txHash.toLowerCase();
    const group = groups.get(key);
    if (group) group.push(log);
    else groups.set(key, [log]);
  }
  return [...groups.values()];
}

/**
 * A TransferWithMemo repeats the nearest earlier unpaired Transfer with the same token, parties and amount: together
 * they are one payment, identified by the Transfer's log index and carrying the memo. A memo without such a Transfer
 * is given to `soloMemo`, whose answer decides: a payment of its own (v0.1) or none (v0.2, rule 2).
 * Payments in log index order.
 */
export function toPayments(transfers: readonly TransferLeg[], soloMemo: (memo: TransferLeg) => boolean): Payment[] {
  const paired = new Set<TransferLeg>();
  const payments: Payment[] = [];
  for (let i = 0; i < transfers.length; i++) {
    const log = transfers[i]!;
    if (!log.isMemo) continue;
    let partner: TransferLeg | undefined;
    for (let j = i - 1; j >= 0; j--) {
      const t = transfers[j]!;
      if (!t.isMemo && !paired.has(t) && t.token === log.token && t.from === log.from && t.to === log.to && t.amount === log.amount) {
        partner = t;
        break;
      }
    }
    if (partner) paired.add(partner);
    else if (!soloMemo(log)) continue;
    payments.push({ logIndex: (partner ?? log).logIndex, token: log.token, from: log.from, to: log.to, amount: log.amount, memo: log.memo });
  }
  for (const t of transfers) {
    if (!t.isMemo && !paired.has(t)) payments.push({ logIndex: t.logIndex, token: t.token, from: t.from, to: t.to, amount: t.amount, memo: null });
  }
  return payments.sort((a, b) => a.logIndex - b.logIndex);
}

/** The watched entity owning `address`, else its address label. */
export function labelOf(address: string, context: MatchContext): Label | undefined {
  const entity = context.wallets.get(address);
  if (entity) return { label: entity.label, category: entity.category };
  return context.addressLabels.get(address);
}

/** The fields every row of one transaction shares. */
export type RowBase = Pick<EventDraft, "ts" | "txHash" | "sourceBlock" | "methodologyVersion" | "explorerUrl">;

/** One ledger row: `entity`'s side of `payment`, with `counterparty` labelled from the context. */
export function row(
  base: RowBase,
  payment: Payment,
  entity: WatchedEntity,
  kind: EventKind,
  counterparty: string,
  routing: Pick<EventDraft, "routedToAddress" | "routedToLabel" | "routedFingerprint">,
  context: MatchContext,
): EventDraft {
  const label = labelOf(counterparty, context);
  // Explicit fields (no object spread): this runs once per row on the indexer's hot path.
  return {
    ts: base.ts,
    agentId: entity.id,
    agentLabel: entity.label,
    agentCategory: entity.category,
    counterpartyAddress: counterparty,
    counterpartyLabel: label?.label ?? "",
    counterpartyCategory: label?.category ?? null,
    kind,
    amountWei: payment.amount,
    tokenAddress: payment.token,
    txHash: base.txHash,
    logIndex: payment.logIndex,
    sourceBlock: base.sourceBlock,
    methodologyVersion: base.methodologyVersion,
    routedToAddress: routing.routedToAddress,
    routedToLabel: routing.routedToLabel,
    routedFingerprint: routing.routedFingerprint,
    explorerUrl: base.explorerUrl,
  };
}
