import { FEE_MANAGER_ADDRESS, type EventKind } from "./constants.ts";
import { decodeLog, type DecodedLog } from "./decodeLog.ts";
import { assertMethodologyVersion } from "./methodology.ts";
import { matchLogsV02 } from "./matchLogsV02.ts";
import { parseGatewayMemo } from "./parseGatewayMemo.ts";
import type { EventDraft, Label, MatchContext, RawLog, WatchedEntity } from "./types.ts";

type Settlement = Extract<DecodedLog, { type: "settlement" }>;
type TransferLog = Extract<DecodedLog, { type: "transfer" | "transferWithMemo" }>;

/** One value movement: a Transfer, merged with the TransferWithMemo that repeats it, if any. */
interface Payment {
  logIndex: number;
  token: string;
  from: string;
  to: string;
  amount: bigint;
  memo: string | null;
}

/**
 * Turns raw logs into ledger rows under methodology `version` (docs/methodology.md is the prose); without a
 * version, v0.1 (the first rules, kept bit for bit). v0.2 is `matchLogsV02`.
 * Pure and deterministic: the same logs and context always give the same rows in the same order
 * (block, log index, sender side before recipient side).
 */
export function matchLogs(logs: readonly RawLog[], context: MatchContext, version: string = "v0.1"): EventDraft[] {
  assertMethodologyVersion(version);
  if (version === "v0.2") return matchLogsV02(logs, context);
  const explorerBase = context.explorerBaseUrl.replace(/\/+$/, "");
  const rows: EventDraft[] = [];
  for (const txLogs of groupByTransaction(logs)) {
    const first = txLogs[0]!;
    const decoded: DecodedLog[] = [];
    for (const log of txLogs) {
      const d = decodeLog(log);
      if (d) decoded.push(d);
    }
    const payments = toPayments(decoded);
    if (!payments.some((p) => context.wallets.has(p.from) || context.wallets.has(p.to))) continue;
    const settlements = decoded.filter((d): d is Settlement => d.type === "settlement" && context.settlementContracts.has(d.contract));
    const txHash = first.txHash.toLowerCase();
    const base = {
      ts: new Date(first.blockTimestamp * 1000),
      txHash,
      sourceBlock: first.blockNumber,
      methodologyVersion: version,
      explorerUrl: `${explorerBase}/tx/${txHash}`,
    };
    for (const payment of payments) {
      const sender = context.wallets.get(payment.from);
      const recipient = context.wallets.get(payment.to);
      // A move between two wallets of the same entity is internal, not a payment.
      if (sender && recipient && sender.id === recipient.id) continue;
      const isFee = payment.to === FEE_MANAGER_ADDRESS;
      const routing = isFee ? NO_ROUTING : routePayment(payment, settlements, context);
      if (sender && (!isFee || sender.trackFees)) {
        rows.push(row(base, payment, sender, isFee ? "fee_paid" : "payment_sent", payment.to, routing, context));
      }
      if (recipient && !isFee) {
        rows.push(row(base, payment, recipient, "payment_received", payment.from, routing, context));
      }
    }
  }
  return rows;
}

const NO_ROUTING = { routedToAddress: "", routedToLabel: "", routedFingerprint: null } as const;

function groupByTransaction(logs: readonly RawLog[]): RawLog[][] {
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
 * A TransferWithMemo repeats the Transfer logged just before it (same token, parties and amount):
 * together they are one payment, identified by the Transfer's log index and carrying the memo.
 */
function toPayments(decoded: readonly DecodedLog[]): Payment[] {
  const transfers = decoded.filter((d): d is TransferLog => d.type === "transfer" || d.type === "transferWithMemo");
  const paired = new Set<TransferLog>();
  const payments: Payment[] = [];
  for (const [i, log] of transfers.entries()) {
    if (log.type !== "transferWithMemo") continue;
    let partner: TransferLog | undefined;
    for (let j = i - 1; j >= 0; j--) {
      const t = transfers[j]!;
      if (t.type === "transfer" && !paired.has(t) && t.token === log.token && t.from === log.from && t.to === log.to && t.amount === log.amount) {
        partner = t;
        break;
      }
    }
    if (partner) paired.add(partner);
    payments.push({ logIndex: (partner ?? log).logIndex, token: log.token, from: log.from, to: log.to, amount: log.amount, memo: log.memo });
  }
  for (const t of transfers) {
    if (t.type === "transfer" && !paired.has(t)) payments.push({ logIndex: t.logIndex, token: t.token, from: t.from, to: t.to, amount: t.amount, memo: null });
  }
  return payments.sort((a, b) => a.logIndex - b.logIndex);
}

/**
 * Pattern A: a trusted Settlement in the same transaction names the provider (the Settlement whose
 * provider is this payment's recipient, else the first one). Pattern B: a gateway memo's fingerprint.
 */
function routePayment(payment: Payment, settlements: readonly Settlement[], context: MatchContext) {
  const fingerprint = parseGatewayMemo(payment.memo);
  const settlement = settlements.find((s) => s.provider === payment.to) ?? settlements[0];
  if (settlement) {
    return { routedToAddress: settlement.provider, routedToLabel: labelOf(settlement.provider, context)?.label ?? "", routedFingerprint: fingerprint };
  }
  if (fingerprint) {
    return { routedToAddress: "", routedToLabel: context.fingerprintLabels.get(fingerprint)?.label ?? "", routedFingerprint: fingerprint };
  }
  return NO_ROUTING;
}

function labelOf(address: string, context: MatchContext): Label | undefined {
  const entity = context.wallets.get(address);
  if (entity) return { label: entity.label, category: entity.category };
  return context.addressLabels.get(address);
}

function row(
  base: Pick<EventDraft, "ts" | "txHash" | "sourceBlock" | "methodologyVersion" | "explorerUrl">,
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
