import { FEE_MANAGER_ADDRESS } from "./constants.ts";
import { decodeLog, type DecodedLog } from "./decodeLog.ts";
import { assertMethodologyVersion } from "./methodology.ts";
import { matchLogsV02 } from "./matchLogsV02.ts";
import { matchLogsV03 } from "./matchLogsV03.ts";
import { parseGatewayMemo } from "./parseGatewayMemo.ts";
import { groupByTransaction, labelOf, NO_ROUTING, row, toPayments, type Payment, type TransferLeg } from "./matchShared.ts";
import type { EventDraft, MatchContext, RawLog } from "./types.ts";

type Settlement = Extract<DecodedLog, { type: "settlement" }>;

/**
 * Turns raw logs into ledger rows under methodology `version` (docs/methodology.md is the prose); without a
 * version, v0.1 (the first rules, kept bit for bit). v0.2 is `matchLogsV02`, v0.3 `matchLogsV03`.
 * Pure and deterministic: the same logs and context always give the same rows in the same order
 * (block, log index, sender side before recipient side).
 */
export function matchLogs(logs: readonly RawLog[], context: MatchContext, version: string = "v0.1"): EventDraft[] {
  assertMethodologyVersion(version);
  if (version === "v0.2") return matchLogsV02(logs, context);
  if (version === "v0.3") return matchLogsV03(logs, context);
  const explorerBase = context.explorerBaseUrl.replace(/\/+$/, "");
  const rows: EventDraft[] = [];
  for (const txLogs of groupByTransaction(logs)) {
    const first = txLogs[0]!;
    const transfers: TransferLeg[] = [];
    const settlements: Settlement[] = [];
    for (const log of txLogs) {
      const d = decodeLog(log);
      if (!d) continue;
      if (d.type === "settlement") {
        if (context.settlementContracts.has(d.contract)) settlements.push(d);
      } else
        transfers.push({ logIndex: d.logIndex, token: d.token, from: d.from, to: d.to, amount: d.amount, memo: d.memo, isMemo: d.type === "transferWithMemo" });
    }
    // v0.1: a TransferWithMemo without its Transfer is a payment of its own.
    const payments = toPayments(transfers, () => true);
    if (!payments.some((p) => context.wallets.has(p.from) || context.wallets.has(p.to))) continue;
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
