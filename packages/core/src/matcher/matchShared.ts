import { FUNDING_CATEGORIES, ZERO_ADDRESS, type EventKind } from "./constants.ts";
import type { EventDraft, Label, MatchContext, RawLog, SettlementEventDefinition, WatchedEntity } from "./types.ts";

// What methodology v0.1 (matchLogs.ts), v0.2 (matchLogsV02.ts) and v0.3 (matchLogsV03.ts) do alike: grouping by transaction, pairing a
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
    attribution: null,
    clientFingerprint: null,
    channelId: null,
  };
}

/** A trusted settlement as its contract declares it (v0.2 rule 7; v0.3 keeps it). */
export interface Settlement {
  contract: string;
  provider: string;
  gateway: string;
  amountOut: bigint;
}

const WORD = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS_TOPIC = /^0x0{24}[0-9a-fA-F]{40}$/;

/** The settlement as its contract declares it: topic 1 session, `providerTopic` provider, the other of 2/3 gateway. */
export function decodeSettlement(log: RawLog, def: SettlementEventDefinition): Settlement | null {
  if (log.topics[0]?.toLowerCase() !== def.topic0.toLowerCase() || log.topics.length !== 4 || !WORD.test(log.topics[1] ?? "")) return null;
  const providerTopic = log.topics[def.providerTopic]!;
  const gatewayTopic = log.topics[def.providerTopic === 2 ? 3 : 2]!;
  if (!ADDRESS_TOPIC.test(providerTopic) || !ADDRESS_TOPIC.test(gatewayTopic)) return null;
  if (!/^0x[0-9a-fA-F]{128}$/.test(log.data)) return null;
  return {
    contract: log.address.toLowerCase(),
    provider: `0x${providerTopic.slice(26).toLowerCase()}`,
    gateway: `0x${gatewayTopic.slice(26).toLowerCase()}`,
    amountOut: BigInt(`0x${log.data.slice(66, 130)}`),
  };
}

/**
 * v0.2 rule 4 (v0.3 keeps it): the zero address (mint/burn), or an entity or address label whose category is a
 * funding category. `entity`: the watched entity owning `address`, if any (the caller has looked it up).
 */
export function isFunding(address: string, entity: WatchedEntity | undefined, context: MatchContext): boolean {
  if (address === ZERO_ADDRESS) return true;
  const category = entity ? entity.category : context.addressLabels.get(address)?.category;
  return category != null && FUNDING_CATEGORIES.has(category);
}
