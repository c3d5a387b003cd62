import { FEE_MANAGER_ADDRESS, GATEWAY_CATEGORY, SETTLEMENT_TOPIC } from "./constants.ts";
import { decodeLog } from "./decodeLog.ts";
import { parseGatewayMemo } from "./parseGatewayMemo.ts";
import {
  decodeSettlement,
  groupByTransaction,
  isFunding,
  labelOf,
  NO_ROUTING,
  row,
  toPayments,
  type RowBase,
  type Settlement,
  type TransferLeg,
} from "./matchShared.ts";
import type { EventDraft, MatchContext, RawLog, SettlementEventDefinition } from "./types.ts";

/** Why a transfer touching a watched wallet produced no row, or not the row v0.1 would produce (rematch --diff). */
export type V02Note = "not_allowlisted_token" | "solo_memo" | "fee_amm" | "internal" | "funding" | "settlement_leg" | "fee";

export interface V02Trace {
  txHash: string;
  logIndex: number;
  note: V02Note;
}

const DEFAULT_SETTLEMENT_EVENT: SettlementEventDefinition = { topic0: SETTLEMENT_TOPIC, providerTopic: 2, verified: true };

/**
 * Methodology v0.2 (docs/methodology.md, "Methodology v0.2", rules 1–9): only allowlisted tokens, no solo
 * TransferWithMemo, funding and settlement legs as their own kinds, only the net fee, Pattern A only for the leg
 * the watched gateway itself sends, settlement events as registry data, milliseconds, explorer base from context.
 * Pure and deterministic; rows in (block, log index, sender side before recipient side) order. When `trace` is
 * given, every transfer that touches a watched wallet but is not (or not plainly) a payment is noted there.
 */
export function matchLogsV02(logs: readonly RawLog[], context: MatchContext, trace?: V02Trace[]): EventDraft[] {
  const explorerBase = context.explorerBaseUrl.replace(/\/+$/, "");
  const tokens = context.tokens ?? new Map();
  const watched = (a: string) => context.wallets.has(a);
  const hasSettlementContracts = context.settlementContracts.size > 0;
  const rows: EventDraft[] = [];
  // Per transaction and payment, no allocation beyond the rows (indexer hot path, bench:indexer): the trace's notes
  // are pushed only when a trace is asked for; the settled legs' map only exists when a settlement does.
  for (const txLogs of groupByTransaction(logs)) {
    const first = txLogs[0]!;
    const txHash = first.txHash.toLowerCase();
    const note = trace ? (logIndex: number, n: V02Note) => trace.push({ txHash, logIndex, note: n }) : ignoreNote;

    // Rule 1: only allowlisted tokens; rule 7: settlement logs decoded with their contract's declared event.
    const transfers: TransferLeg[] = [];
    const settlements: Settlement[] = [];
    for (const log of txLogs) {
      const address = hasSettlementContracts ? log.address.toLowerCase() : "";
      if (hasSettlementContracts && context.settlementContracts.has(address)) {
        const s = decodeSettlement(log, context.settlementEvents?.get(address) ?? DEFAULT_SETTLEMENT_EVENT);
        if (s) settlements.push(s);
        continue;
      }
      const d = decodeLog(log);
      if (!d || d.type === "settlement") continue;
      if (!tokens.has(d.token)) {
        if (watched(d.from) || watched(d.to)) note(d.logIndex, "not_allowlisted_token");
        continue;
      }
      transfers.push({ logIndex: d.logIndex, token: d.token, from: d.from, to: d.to, amount: d.amount, memo: d.memo, isMemo: d.type === "transferWithMemo" });
    }
    // Rule 2: a TransferWithMemo without its Transfer is not a payment.
    const payments = toPayments(
      transfers,
      trace
        ? (t) => {
            if (watched(t.from) || watched(t.to)) note(t.logIndex, "solo_memo");
            return false;
          }
        : dropSoloMemo,
    );
    if (!payments.some((p) => watched(p.from) || watched(p.to))) continue;

    // Rule 5: the last transfer to the FeeManager is the fee; every other FeeManager flow is the fee AMM's.
    let feeIndex = -1;
    for (const p of payments) if (p.to === FEE_MANAGER_ADDRESS) feeIndex = p.logIndex;

    // Rule 6: a settlement counts when its gateway is a watched gateway that itself sends the leg it settles.
    const settledBy = settlements.length > 0 ? new Map<number, Settlement>() : null;
    for (const s of settlements) {
      const gateway = context.wallets.get(s.gateway);
      if (!gateway || gateway.category !== GATEWAY_CATEGORY) continue;
      const leg = payments.find((p) => !settledBy!.has(p.logIndex) && p.from === s.gateway && p.to === s.provider && p.amount === s.amountOut);
      if (leg) settledBy!.set(leg.logIndex, s);
    }

    const ms = first.blockTimestampMs ?? first.blockTimestamp * 1000;
    const base: RowBase = { ts: new Date(ms), txHash, sourceBlock: first.blockNumber, methodologyVersion: "v0.2", explorerUrl: `${explorerBase}/tx/${txHash}` };
    for (const payment of payments) {
      const sender = context.wallets.get(payment.from);
      const recipient = context.wallets.get(payment.to);
      if (!sender && !recipient) continue;
      if (sender && recipient && sender.id === recipient.id) {
        note(payment.logIndex, "internal");
        continue;
      }
      if (payment.to === FEE_MANAGER_ADDRESS || payment.from === FEE_MANAGER_ADDRESS) {
        if (payment.logIndex !== feeIndex) {
          note(payment.logIndex, "fee_amm");
          continue;
        }
        note(payment.logIndex, "fee");
        if (sender?.trackFees) rows.push(row(base, payment, sender, "fee_paid", payment.to, NO_ROUTING, context));
        continue;
      }
      const settlement = settledBy?.get(payment.logIndex);
      if (settlement) {
        note(payment.logIndex, "settlement_leg");
        const routing = {
          routedToAddress: settlement.provider,
          routedToLabel: labelOf(settlement.provider, context)?.label ?? "",
          routedFingerprint: parseGatewayMemo(payment.memo),
        };
        if (sender) rows.push(row(base, payment, sender, "settlement_sent", payment.to, routing, context));
        if (recipient) rows.push(row(base, payment, recipient, "settlement_received", payment.from, routing, context));
        continue;
      }
      if (isFunding(payment.from, sender, context) || isFunding(payment.to, recipient, context)) {
        note(payment.logIndex, "funding");
        if (sender) rows.push(row(base, payment, sender, "funding_sent", payment.to, NO_ROUTING, context));
        if (recipient) rows.push(row(base, payment, recipient, "funding_received", payment.from, NO_ROUTING, context));
        continue;
      }
      const routing = routeByFingerprint(payment.memo, context);
      if (sender) rows.push(row(base, payment, sender, "payment_sent", payment.to, routing, context));
      if (recipient) rows.push(row(base, payment, recipient, "payment_received", payment.from, routing, context));
    }
  }
  return rows;
}

const ignoreNote = (_logIndex: number, _note: V02Note) => {};
const dropSoloMemo = () => false;

/** Pattern B, with the fingerprint's provider link (rule 3): the linked address names the provider. */
function routeByFingerprint(memo: string | null, context: MatchContext) {
  const fingerprint = parseGatewayMemo(memo);
  if (!fingerprint) return NO_ROUTING;
  const fpLabel = context.fingerprintLabels.get(fingerprint)?.label ?? "";
  const provider = context.fingerprintProviders?.get(fingerprint);
  if (provider) return { routedToAddress: provider, routedToLabel: labelOf(provider, context)?.label ?? fpLabel, routedFingerprint: fingerprint };
  return { routedToAddress: "", routedToLabel: fpLabel, routedFingerprint: fingerprint };
}
