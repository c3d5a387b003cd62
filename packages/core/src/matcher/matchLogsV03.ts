import { FEE_MANAGER_ADDRESS, GATEWAY_CATEGORY, SETTLEMENT_TOPIC, VIRTUAL_ADDRESS_MAGIC, type EventKind } from "./constants.ts";
import { decodeEscrowLog, type EscrowEvent } from "./decodeEscrowLog.ts";
import { decodeLog } from "./decodeLog.ts";
import { parseMppMemo, type MppMemo } from "./parseMppMemo.ts";
import {
  decodeSettlement,
  groupByTransaction,
  isFunding,
  labelOf,
  NO_ROUTING,
  row,
  toPayments,
  type Payment,
  type RowBase,
  type Settlement,
  type TransferLeg,
} from "./matchShared.ts";
import type { V02Note } from "./matchLogsV02.ts";
import type { Attribution, EventDraft, MatchContext, RawLog, SettlementEventDefinition, WatchedEntity } from "./types.ts";

/**
 * Why a transfer is not (or not plainly) a payment of its recipient under v0.3 (rematch --diff explains every
 * difference with these). v0.2's notes keep their meaning; `agentId` names the entity a note is about when the note
 * concerns one side only (`attributed_to_service`: the service that now has the row; `charge_of_service`: the watched
 * recipient, e.g. the gateway, that has none).
 */
export type V03Note =
  | V02Note
  /** An escrow → payee transfer that a Settled / ChannelClosed event of that payee pays: the session payment. */
  | "session_payout"
  /** A deposit, top-up or refund of a session channel (or any other escrow flow no event explains): funding. */
  | "session_funding"
  /** A payout of a channel whose payer is its own payee: no payment, funding. */
  | "session_self"
  /** A charge whose MPP serverId names a registry service: the service's payment_received. */
  | "attributed_to_service"
  /** A watched recipient of a charge that belongs to another service (e.g. the gateway): no row for it. */
  | "charge_of_service"
  /** A charge naming a known service whose recipient cannot be the service's (self-transfer, foreign wallet): recipient rule. */
  | "server_id_mismatch"
  /** A plain transfer of a charge's payer to another recipient in the charge's transaction: a split leg of the charge. */
  | "split_leg"
  /** The second hop Transfer(virtual, master) of a TIP-1022 virtual address: folded into the payment to the master. */
  | "virtual_forward";

export interface V03Trace {
  txHash: string;
  logIndex: number;
  note: V03Note;
  agentId?: string;
}

/** A payment after TIP-1022 folding: `to` is who was credited; `via` the virtual address it was sent to, if any. */
interface V03Payment extends Payment {
  via?: string;
}

/** How a charge (a payment with an MPP memo) is attributed, and what its split legs inherit. */
interface ChargeRoute {
  payment: V03Payment;
  /** The service named by the serverId, when the anti-spoof checks pass. */
  service: WatchedEntity | null;
  routing: Pick<EventDraft, "routedToAddress" | "routedToLabel" | "routedFingerprint">;
  attribution: Attribution;
  clientFingerprint: string | null;
}

/** What an escrow flow of the transaction is. */
type SessionFlow =
  | { type: "payout"; event: Extract<EscrowEvent, { type: "settled" | "channelClosed" }> }
  | { type: "funding"; channelId: string | null; self: boolean };

type Extras = Pick<EventDraft, "attribution" | "clientFingerprint" | "channelId">;

const DEFAULT_SETTLEMENT_EVENT: SettlementEventDefinition = { topic0: SETTLEMENT_TOPIC, providerTopic: 2, verified: true };
const PLAIN: Extras = { attribution: "recipient_wallet", clientFingerprint: null, channelId: null };
const NO_EXTRAS: Extras = { attribution: null, clientFingerprint: null, channelId: null };

/** Entity ids that own at least one wallet, per wallets map (the anti-spoof check asks it for every charge). */
const entitiesWithWalletsCache = new WeakMap<ReadonlyMap<string, WatchedEntity>, ReadonlySet<string>>();
function entitiesWithWallets(wallets: ReadonlyMap<string, WatchedEntity>): ReadonlySet<string> {
  let ids = entitiesWithWalletsCache.get(wallets);
  if (!ids) {
    ids = new Set([...wallets.values()].map((e) => e.id));
    entitiesWithWalletsCache.set(wallets, ids);
  }
  return ids;
}

/** TIP-1022: an address whose bytes 4..13 are the virtual magic. */
const isVirtual = (address: string) => address.slice(10, 30) === VIRTUAL_ADDRESS_MAGIC;

/**
 * Methodology v0.3 (docs/methodology.md, "Methodology v0.3"): v0.2's rules, plus MPP charges attributed by the memo's
 * serverId (with anti-spoof checks), split legs, sessions read from the registry escrows' own events, and TIP-1022
 * virtual-address forwarding folded into one payment. Pure and deterministic; rows in (block, log index, sender side
 * before recipient side) order. When `trace` is given, every transfer treated otherwise than as a plain payment of
 * its recipient is noted there (a transfer that touches nothing watched is noted only when a rule reads it).
 */
export function matchLogsV03(logs: readonly RawLog[], context: MatchContext, trace?: V03Trace[]): EventDraft[] {
  const explorerBase = context.explorerBaseUrl.replace(/\/+$/, "");
  const tokens = context.tokens ?? new Map();
  const escrows = context.escrows ?? new Map();
  const serverIds = context.serverIds ?? new Map();
  const watched = (a: string) => context.wallets.has(a);
  const hasSettlementContracts = context.settlementContracts.size > 0;
  const rows: EventDraft[] = [];
  for (const txLogs of groupByTransaction(logs)) {
    const first = txLogs[0]!;
    const txHash = first.txHash.toLowerCase();
    const note = trace
      ? (logIndex: number, n: V03Note, agentId?: string) =>
          trace.push(agentId === undefined ? { txHash, logIndex, note: n } : { txHash, logIndex, note: n, agentId })
      : ignoreNote;

    // v0.2 rule 1 (allowlist) and rule 7 (settlement events); rule 4: escrow logs decoded by the escrow's own ABI.
    const transfers: TransferLeg[] = [];
    const settlements: Settlement[] = [];
    const escrowEvents: EscrowEvent[] = [];
    for (const log of txLogs) {
      const address = log.address.toLowerCase();
      const escrow = escrows.size > 0 ? escrows.get(address) : undefined;
      if (escrow) {
        const e = decodeEscrowLog(log, escrow.abi);
        if (e) escrowEvents.push(e);
        continue;
      }
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
    // v0.2 rule 2: a TransferWithMemo without its Transfer is not a payment.
    const paired = toPayments(
      transfers,
      trace
        ? (t) => {
            if (watched(t.from) || watched(t.to)) note(t.logIndex, "solo_memo");
            return false;
          }
        : dropSoloMemo,
    );
    const payments = foldVirtualHops(paired, (logIndex, from, to) => {
      if (watched(from) || watched(to)) note(logIndex, "virtual_forward");
    });
    const memos = payments.map((p) => (p.memo === null ? null : parseMppMemo(p.memo)));
    const touches = (p: V03Payment, i: number) =>
      watched(p.from) || watched(p.to) || escrows.has(p.from) || escrows.has(p.to) || (memos[i] != null && serverIds.has(memos[i]!.serverId));
    if (!payments.some(touches)) continue;

    // v0.2 rule 5: the last transfer to the FeeManager is the fee; every other FeeManager flow is the fee AMM's.
    let feeIndex = -1;
    for (const p of payments) if (p.to === FEE_MANAGER_ADDRESS) feeIndex = p.logIndex;
    const isFeeManagerFlow = (p: V03Payment) => p.to === FEE_MANAGER_ADDRESS || p.from === FEE_MANAGER_ADDRESS;

    // Rule 4: sessions — each escrow flow explained by the escrow's events of this transaction.
    const sessions = escrows.size > 0 ? sessionFlows(payments, escrowEvents, escrows) : null;

    // v0.2 rule 6: a settlement counts when its watched gateway itself sends the leg it settles.
    const settledBy = settlements.length > 0 ? new Map<number, Settlement>() : null;
    for (const s of settlements) {
      const gateway = context.wallets.get(s.gateway);
      if (!gateway || gateway.category !== GATEWAY_CATEGORY) continue;
      const leg = payments.find((p) => !settledBy!.has(p.logIndex) && p.from === s.gateway && p.to === s.provider && p.amount === s.amountOut);
      if (leg) settledBy!.set(leg.logIndex, s);
    }

    // Rule 2: every charge (a payment with an MPP memo) is attributed once, before the rows, so its split legs can
    // inherit its route.
    const charges: ChargeRoute[] = [];
    const chargeOf = new Map<number, ChargeRoute>();
    for (let i = 0; i < payments.length; i++) {
      const p = payments[i]!;
      const memo = memos[i];
      if (!memo || isFeeManagerFlow(p) || sessions?.has(p.logIndex) || settledBy?.has(p.logIndex)) continue;
      const c = routeCharge(p, memo, context, serverIds, () => note(p.logIndex, "server_id_mismatch"));
      charges.push(c);
      chargeOf.set(p.logIndex, c);
    }

    const ms = first.blockTimestampMs ?? first.blockTimestamp * 1000;
    const base: RowBase = { ts: new Date(ms), txHash, sourceBlock: first.blockNumber, methodologyVersion: "v0.3", explorerUrl: `${explorerBase}/tx/${txHash}` };
    const push = (p: Payment, entity: WatchedEntity, kind: EventKind, counterparty: string, routing: ChargeRoute["routing"], extras: Extras) => {
      const r = row(base, p, entity, kind, counterparty, routing, context);
      r.attribution = extras.attribution;
      r.clientFingerprint = extras.clientFingerprint;
      r.channelId = extras.channelId;
      rows.push(r);
    };
    for (const payment of payments) {
      const sender = context.wallets.get(payment.from);
      const recipient = context.wallets.get(payment.to);
      const session = sessions?.get(payment.logIndex);
      const charge = chargeOf.get(payment.logIndex);
      if (!sender && !recipient && !session && !charge?.service) continue;

      if (isFeeManagerFlow(payment)) {
        if (payment.logIndex !== feeIndex) {
          note(payment.logIndex, "fee_amm");
          continue;
        }
        note(payment.logIndex, "fee");
        if (sender?.trackFees) push(payment, sender, "fee_paid", payment.to, NO_ROUTING, NO_EXTRAS);
        continue;
      }

      if (session) {
        // A channel whose payer is its own payee (directly, or through a virtual address of its own) pays nobody.
        const flow: SessionFlow =
          session.type === "payout" && session.event.payer === payment.to ? { type: "funding", channelId: session.event.channelId, self: true } : session;
        if (flow.type === "funding") {
          note(payment.logIndex, flow.self ? "session_self" : "session_funding");
          const from = sender ?? escrows.get(payment.from)?.entity;
          const to = recipient ?? escrows.get(payment.to)?.entity;
          const extras = { attribution: null, clientFingerprint: null, channelId: flow.channelId };
          if (from) push(payment, from, "funding_sent", payment.to, NO_ROUTING, extras);
          if (to) push(payment, to, "funding_received", payment.from, NO_ROUTING, extras);
          continue;
        }
        // The session payment: from the channel's payer to its payee (the escrow only holds the money).
        const payer = flow.event.payer;
        const payee = payment.to;
        const payerEntity = context.wallets.get(payer);
        const payeeEntity = recipient;
        if (payerEntity && payeeEntity && payerEntity.id === payeeEntity.id) {
          note(payment.logIndex, "internal");
          continue;
        }
        note(payment.logIndex, "session_payout");
        const routing = { routedToAddress: payee, routedToLabel: labelOf(payee, context)?.label ?? "", routedFingerprint: null };
        const extras: Extras = { attribution: "session_escrow", clientFingerprint: null, channelId: flow.event.channelId };
        if (payerEntity || payeeEntity) {
          if (payerEntity) push(payment, payerEntity, "payment_sent", payee, routing, extras);
          if (payeeEntity) push(payment, payeeEntity, "payment_received", payer, routing, extras);
        } else {
          push(payment, escrows.get(payment.from)!.entity, "settlement_sent", payee, routing, extras);
        }
        continue;
      }

      if (sender && recipient && sender.id === recipient.id) {
        note(payment.logIndex, "internal");
        continue;
      }

      const settlement = settledBy?.get(payment.logIndex);
      if (settlement) {
        note(payment.logIndex, "settlement_leg");
        const routing = {
          routedToAddress: settlement.provider,
          routedToLabel: labelOf(settlement.provider, context)?.label ?? "",
          routedFingerprint: parseMppMemo(payment.memo)?.serverId ?? null,
        };
        if (sender) push(payment, sender, "settlement_sent", payment.to, routing, PLAIN);
        if (recipient) push(payment, recipient, "settlement_received", payment.from, routing, PLAIN);
        continue;
      }

      if (isFunding(payment.from, sender, context) || isFunding(payment.to, recipient, context)) {
        note(payment.logIndex, "funding");
        if (sender) push(payment, sender, "funding_sent", payment.to, NO_ROUTING, NO_EXTRAS);
        if (recipient) push(payment, recipient, "funding_received", payment.from, NO_ROUTING, NO_EXTRAS);
        continue;
      }

      if (charge?.service) {
        const service = charge.service;
        const extras: Extras = { attribution: charge.attribution, clientFingerprint: charge.clientFingerprint, channelId: null };
        if (sender && sender.id === service.id) {
          note(payment.logIndex, "internal"); // the service paying itself through its gateway
          continue;
        }
        note(payment.logIndex, "attributed_to_service", service.id);
        if (recipient && recipient.id !== service.id) note(payment.logIndex, "charge_of_service", recipient.id);
        if (sender) push(payment, sender, "payment_sent", payment.to, charge.routing, extras);
        push(payment, service, "payment_received", payment.from, charge.routing, extras);
        continue;
      }

      // Rule 3: a plain transfer of a charge's payer, same token, to another recipient, is a split leg of the charge.
      const split = !charge && payment.memo === null ? splitOf(payment, charges) : undefined;
      const route = charge ?? split;
      if (split) note(payment.logIndex, "split_leg");
      const routing = route ? route.routing : NO_ROUTING;
      const extras: Extras = route ? { attribution: route.attribution, clientFingerprint: route.clientFingerprint, channelId: null } : PLAIN;
      if (sender) push(payment, sender, "payment_sent", payment.to, routing, extras);
      if (recipient) push(payment, recipient, "payment_received", payment.from, routing, extras);
    }
  }
  return rows;
}

/**
 * TIP-1022 (tempoxyz/tempo `tips/tip-1022.md`, "Event Emission"): a TIP-20 transfer to a virtual address logs
 * Transfer(from, virtual) [+ TransferWithMemo(from, virtual)] then Transfer(virtual, master), same token and amount.
 * The pair is one payment from `from` to the master (at the first hop's log index, with its memo).
 */
function foldVirtualHops(payments: readonly Payment[], onHop: (logIndex: number, from: string, master: string) => void): readonly V03Payment[] {
  if (!payments.some((p) => isVirtual(p.to))) return payments;
  const hops = new Set<Payment>();
  const out: V03Payment[] = [];
  for (let i = 0; i < payments.length; i++) {
    const p = payments[i]!;
    if (hops.has(p)) continue;
    if (isVirtual(p.to)) {
      const hop = payments
        .slice(i + 1)
        .find((h) => !hops.has(h) && h.memo === null && h.from === p.to && h.token === p.token && h.amount === p.amount && !isVirtual(h.to));
      if (hop) {
        hops.add(hop);
        onHop(hop.logIndex, p.from, hop.to);
        out.push({ ...p, to: hop.to, via: p.to });
        continue;
      }
    }
    out.push(p);
  }
  return out;
}

/**
 * Rule 4: what each payment to or from a registry escrow is, from the escrow's events of the transaction.
 * - escrow → payee of exactly a `Settled.deltaPaid` of that payee: the payout of that settle;
 * - escrow → payer of exactly `ChannelClosed.refundedToPayer`: the refund (funding);
 * - escrow → payee of at most `ChannelClosed.settledToPayee` (which is the channel's cumulative total, not the close's
 *   payout): the close's payout — a close with no new voucher transfers nothing to the payee, so pays nothing;
 * - payer → escrow of exactly `ChannelOpened.deposit` (same token) or `TopUp.additionalDeposit`: funding of that channel;
 * - any other flow to or from an escrow: funding without a channel (the escrow holds money, it is never a party).
 * Each event explains one transfer. (A payout that reaches the channel's own payer is no payment: the caller's rule.)
 */
function sessionFlows(payments: readonly V03Payment[], events: readonly EscrowEvent[], escrows: ReadonlyMap<string, unknown>): Map<number, SessionFlow> | null {
  const flows = new Map<number, SessionFlow>();
  const claim = (match: (p: V03Payment) => boolean): V03Payment | undefined => payments.find((p) => !flows.has(p.logIndex) && match(p));
  const paidTo = (p: V03Payment, address: string) => p.to === address || p.via === address;
  for (const e of events) {
    if (e.type !== "settled") continue;
    const p = claim((q) => q.from === e.escrow && paidTo(q, e.payee) && q.amount === e.deltaPaid && q.amount > 0n);
    if (p) flows.set(p.logIndex, { type: "payout", event: e });
  }
  for (const e of events) {
    if (e.type !== "channelClosed") continue;
    const refund = e.refundedToPayer > 0n ? claim((q) => q.from === e.escrow && paidTo(q, e.payer) && q.amount === e.refundedToPayer) : undefined;
    if (refund) flows.set(refund.logIndex, { type: "funding", channelId: e.channelId, self: false });
    const p = claim((q) => q.from === e.escrow && paidTo(q, e.payee) && q.amount > 0n && q.amount <= e.settledToPayee);
    if (p) flows.set(p.logIndex, { type: "payout", event: e });
  }
  for (const e of events) {
    if (e.type === "channelOpened") {
      const p = claim((q) => q.from === e.payer && q.to === e.escrow && q.token === e.token && q.amount === e.deposit);
      if (p) flows.set(p.logIndex, { type: "funding", channelId: e.channelId, self: false });
    } else if (e.type === "topUp" && e.additionalDeposit > 0n) {
      const p = claim((q) => q.from === e.payer && q.to === e.escrow && q.amount === e.additionalDeposit);
      if (p) flows.set(p.logIndex, { type: "funding", channelId: e.channelId, self: false });
    }
  }
  for (const p of payments) {
    if (!flows.has(p.logIndex) && (escrows.has(p.from) || escrows.has(p.to))) flows.set(p.logIndex, { type: "funding", channelId: null, self: false });
  }
  return flows.size > 0 ? flows : null;
}

/**
 * A charge's routing: Pattern B by its serverId. When the registry links that fingerprint to a provider address
 * (`fingerprint_labels[].provider_address`, v0.2 rule 3) the row carries the address too, and — as in v0.2 — the
 * provider views count the settlement leg that reached that address, not the charge again (computeRollups).
 */
function linkedRouting(serverId: string, label: string, context: MatchContext): ChargeRoute["routing"] {
  const provider = context.fingerprintProviders?.get(serverId);
  if (provider) return { routedToAddress: provider, routedToLabel: labelOf(provider, context)?.label ?? label, routedFingerprint: serverId };
  return { routedToAddress: "", routedToLabel: label, routedFingerprint: serverId };
}

/**
 * Rule 2: a charge is the service's that its serverId names (registry `server_ids`), unless the payer pays itself or
 * the service has registered wallets and the recipient is neither one of them nor a gateway's wallet; then, as any
 * other MPP memo, the recipient's (routing by the fingerprint and its label).
 */
function routeCharge(
  payment: V03Payment,
  memo: MppMemo,
  context: MatchContext,
  serverIds: NonNullable<MatchContext["serverIds"]>,
  onMismatch: () => void,
): ChargeRoute {
  const info = serverIds.get(memo.serverId);
  if (info) {
    const recipient = context.wallets.get(payment.to);
    const foreignRecipient =
      entitiesWithWallets(context.wallets).has(info.entity.id) && recipient?.id !== info.entity.id && recipient?.category !== GATEWAY_CATEGORY;
    if (payment.from !== payment.to && !foreignRecipient) {
      return {
        payment,
        service: info.entity,
        routing: linkedRouting(memo.serverId, info.entity.label, context),
        attribution: info.source === "host" ? "server_id_host" : "server_id_realm",
        clientFingerprint: memo.clientId,
      };
    }
    onMismatch();
  }
  return {
    payment,
    service: null,
    routing: linkedRouting(memo.serverId, context.fingerprintLabels.get(memo.serverId)?.label ?? "", context),
    attribution: "recipient_wallet",
    clientFingerprint: memo.clientId,
  };
}

/**
 * Rule 3: the charge a plain transfer is a split leg of — a charge of the same payer in the same token to another
 * recipient (the nearest in log order, the earlier on a tie); none when the transfer goes back to its payer.
 */
function splitOf(payment: V03Payment, charges: readonly ChargeRoute[]): ChargeRoute | undefined {
  let best: ChargeRoute | undefined;
  for (const c of charges) {
    const p = c.payment;
    if (p.from !== payment.from || p.token !== payment.token || p.to === payment.to || payment.to === payment.from) continue;
    if (!best || Math.abs(p.logIndex - payment.logIndex) < Math.abs(best.payment.logIndex - payment.logIndex)) best = c;
  }
  return best;
}

const ignoreNote = (_logIndex: number, _note: V03Note, _agentId?: string) => {};
const dropSoloMemo = () => false;
