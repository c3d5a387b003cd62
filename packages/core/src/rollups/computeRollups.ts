import { ACTIVITY_KINDS } from "../matcher/constants.ts";
import type { EventDraft } from "../matcher/types.ts";

export interface EntityBucketDelta {
  entityId: string;
  bucket: Date;
  sentCount: number;
  sentSumWei: bigint;
  receivedCount: number;
  receivedSumWei: bigint;
  feeCount: number;
  feeSumWei: bigint;
}

export interface LedgerBucketDelta {
  bucket: Date;
  paymentsCount: number;
  amountSumWei: bigint;
}

/** The ledger bucket split by token (the per-token breakdown of txCount / amountSumWei). */
export interface LedgerTokenBucketDelta {
  bucket: Date;
  tokenAddress: string;
  paymentsCount: number;
  amountSumWei: bigint;
}

/** An entity bucket split by token: its payments (sent + received) and fees in one token. */
export interface EntityTokenBucketDelta {
  entityId: string;
  bucket: Date;
  tokenAddress: string;
  paymentsCount: number;
  amountSumWei: bigint;
  feeCount: number;
  feeSumWei: bigint;
}

/** A provider bucket split by token. */
export interface ProviderTokenBucketDelta {
  providerKey: string;
  bucket: Date;
  tokenAddress: string;
  paymentsCount: number;
  amountSumWei: bigint;
}

export interface ProviderBucketDelta {
  providerKey: string;
  bucket: Date;
  pattern: "address" | "fingerprint";
  paymentsCount: number;
  amountSumWei: bigint;
}

export interface ProviderTotalDelta {
  providerKey: string;
  pattern: "address" | "fingerprint";
  paymentsCount: number;
  amountSumWei: bigint;
  /** First and last hourly bucket with a routed payment in these rows. */
  firstSeen: Date;
  lastSeen: Date;
}

export interface RollupGrain {
  entities: EntityBucketDelta[];
  ledger: LedgerBucketDelta[];
  /** The ledger buckets per token (same payments). */
  ledgerTokens: LedgerTokenBucketDelta[];
  providers: ProviderBucketDelta[];
  /** The entity buckets per token (payments sent + received, fees). */
  entityTokens: EntityTokenBucketDelta[];
  /** The provider buckets per token (same payments). */
  providerTokens: ProviderTokenBucketDelta[];
}

/** An entity's all-time counters: its bucket deltas without the bucket. */
export type EntityTotalDelta = Omit<EntityBucketDelta, "bucket">;

export interface RollupDeltas {
  hourly: RollupGrain;
  daily: RollupGrain;
  entityTotals: EntityTotalDelta[];
  providerTotals: ProviderTotalDelta[];
}

type KindCounters = Omit<EntityTotalDelta, "entityId">;

/** Counts a row as sent, received or fee by its kind; v0.2's settlement legs and funding moves are not counted. */
function addByKind(c: KindCounters, r: EventDraft): void {
  if (r.kind === "payment_sent") {
    c.sentCount++;
    c.sentSumWei += r.amountWei;
  } else if (r.kind === "payment_received") {
    c.receivedCount++;
    c.receivedSumWei += r.amountWei;
  } else if (r.kind === "fee_paid") {
    c.feeCount++;
    c.feeSumWei += r.amountWei;
  }
}

/**
 * Whether the first row of a payment counts in the provider rollups. v0.1: every routed payment. v0.2 (methodology
 * rule 3): what reached the provider — settlement legs (keyed by the provider address) and payments routed by a
 * fingerprint that is not linked to an address; a linked payment is represented by its provider's settlement legs.
 * v0.3 (rule 6): a session payout by its payee's address (Pattern A), a charge by its serverId group (Pattern B), and
 * a registry-declared settlement leg by its provider's address; a charge whose serverId the registry links to an
 * address carries that address and is represented by the settlement leg (v0.2 rule 3), not counted twice.
 */
function countsForProvider(r: EventDraft, activity: boolean): boolean {
  if (r.methodologyVersion === "v0.1") return activity && (r.routedToAddress !== "" || r.routedFingerprint !== null);
  const settlementLeg = r.kind === "settlement_sent" || r.kind === "settlement_received";
  // v0.3: a session payout (Pattern A, the payee's address) and a charge by its serverId group (Pattern B); a charge
  // whose fingerprint the registry links to an address is represented by that address's settlement leg (as v0.2).
  if (r.methodologyVersion === "v0.3" && activity) {
    return r.attribution === "session_escrow" ? r.routedToAddress !== "" : r.routedToAddress === "" && r.routedFingerprint !== null;
  }
  if (settlementLeg) return r.routedToAddress !== "";
  return activity && r.routedToAddress === "" && r.routedFingerprint !== null;
}

const grainMaps = () => ({
  entities: new Map<string, EntityBucketDelta>(),
  ledger: new Map<number, LedgerBucketDelta>(),
  ledgerTokens: new Map<string, LedgerTokenBucketDelta>(),
  providers: new Map<string, ProviderBucketDelta>(),
  entityTokens: new Map<string, EntityTokenBucketDelta>(),
  providerTokens: new Map<string, ProviderTokenBucketDelta>(),
});

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * What a set of newly stored ledger rows adds to the rollup tables, per UTC hour and day — the same numbers as the
 * indexer's SQL rollup (`rollupCtes`), computed where the rows already are:
 * - entity buckets count the entity's `payment_sent` / `payment_received` / `fee_paid` rows by `kind` (v0.2's
 *   settlement legs and funding moves are rows, not activity);
 * - ledger and provider buckets count each payment once (a payment between two watched entities is two rows with the
 *   same tx hash and log index); the ledger counts activity kinds only (fees excluded);
 * - a payment routed to a provider is keyed by the provider address (Pattern A, or v0.2's fingerprint link) or else
 *   the memo fingerprint (Pattern B); which rows count for providers depends on the version (countsForProvider).
 * Invariant: the caller passes only rows that were actually inserted (none already stored), or buckets double-count.
 */
export function computeRollups(rows: readonly EventDraft[]): RollupDeltas {
  const grains = [
    { size: HOUR_MS, ...grainMaps() },
    { size: DAY_MS, ...grainMaps() },
  ];
  const totals = new Map<string, ProviderTotalDelta>();
  const entityTotals = new Map<string, EntityTotalDelta>();
  const seenPayments = new Set<string>();

  for (const r of rows) {
    const ms = r.ts.getTime();
    const activity = ACTIVITY_KINDS.has(r.kind);
    // One payment, once: the first row seen for its (tx hash, log index) stands for it.
    let firstRow = false;
    if (r.kind !== "fee_paid") {
      const key = `${r.txHash}:${r.logIndex}`;
      if (!seenPayments.has(key)) {
        seenPayments.add(key);
        firstRow = true;
      }
    }
    const countPayment = firstRow && activity;
    const routed = firstRow && countsForProvider(r, activity);
    const providerKey = r.routedToAddress !== "" ? r.routedToAddress : r.routedFingerprint;
    const pattern = r.routedToAddress !== "" ? "address" : "fingerprint";

    let et = entityTotals.get(r.agentId);
    if (!et) {
      et = { entityId: r.agentId, sentCount: 0, sentSumWei: 0n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n };
      entityTotals.set(r.agentId, et);
    }
    addByKind(et, r);

    for (const g of grains) {
      const start = Math.floor(ms / g.size) * g.size;
      const ek = `${r.agentId}\u0000${start}`;
      let e = g.entities.get(ek);
      if (!e) {
        e = { entityId: r.agentId, bucket: new Date(start), sentCount: 0, sentSumWei: 0n, receivedCount: 0, receivedSumWei: 0n, feeCount: 0, feeSumWei: 0n };
        g.entities.set(ek, e);
      }
      addByKind(e, r);
      if (activity || r.kind === "fee_paid") {
        const etk = `${ek}\u0000${r.tokenAddress}`;
        let et = g.entityTokens.get(etk);
        if (!et) {
          et = { entityId: r.agentId, bucket: new Date(start), tokenAddress: r.tokenAddress, paymentsCount: 0, amountSumWei: 0n, feeCount: 0, feeSumWei: 0n };
          g.entityTokens.set(etk, et);
        }
        if (activity) {
          et.paymentsCount++;
          et.amountSumWei += r.amountWei;
        } else {
          et.feeCount++;
          et.feeSumWei += r.amountWei;
        }
      }
      if (countPayment) {
        let l = g.ledger.get(start);
        if (!l) {
          l = { bucket: new Date(start), paymentsCount: 0, amountSumWei: 0n };
          g.ledger.set(start, l);
        }
        l.paymentsCount++;
        l.amountSumWei += r.amountWei;
        const tk = `${r.tokenAddress}\u0000${start}`;
        let lt = g.ledgerTokens.get(tk);
        if (!lt) {
          lt = { bucket: new Date(start), tokenAddress: r.tokenAddress, paymentsCount: 0, amountSumWei: 0n };
          g.ledgerTokens.set(tk, lt);
        }
        lt.paymentsCount++;
        lt.amountSumWei += r.amountWei;
      }
      if (!routed) continue;
      const pk = `${providerKey}\u0000${start}`;
      let p = g.providers.get(pk);
      if (!p) {
        p = { providerKey: providerKey!, bucket: new Date(start), pattern, paymentsCount: 0, amountSumWei: 0n };
        g.providers.set(pk, p);
      }
      p.paymentsCount++;
      p.amountSumWei += r.amountWei;
      const ptk = `${pk}\u0000${r.tokenAddress}`;
      let pt = g.providerTokens.get(ptk);
      if (!pt) {
        pt = { providerKey: providerKey!, bucket: new Date(start), tokenAddress: r.tokenAddress, paymentsCount: 0, amountSumWei: 0n };
        g.providerTokens.set(ptk, pt);
      }
      pt.paymentsCount++;
      pt.amountSumWei += r.amountWei;
    }
    if (routed) {
      const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
      const t = totals.get(providerKey!);
      if (!t) {
        totals.set(providerKey!, {
          providerKey: providerKey!,
          pattern,
          paymentsCount: 1,
          amountSumWei: r.amountWei,
          firstSeen: new Date(hour),
          lastSeen: new Date(hour),
        });
      } else {
        t.paymentsCount++;
        t.amountSumWei += r.amountWei;
        if (pattern < t.pattern) t.pattern = pattern;
        if (hour < t.firstSeen.getTime()) t.firstSeen = new Date(hour);
        if (hour > t.lastSeen.getTime()) t.lastSeen = new Date(hour);
      }
    }
  }
  const grain = (g: (typeof grains)[number]): RollupGrain => ({
    entities: [...g.entities.values()],
    ledger: [...g.ledger.values()],
    ledgerTokens: [...g.ledgerTokens.values()],
    providers: [...g.providers.values()],
    entityTokens: [...g.entityTokens.values()],
    providerTokens: [...g.providerTokens.values()],
  });
  return { hourly: grain(grains[0]!), daily: grain(grains[1]!), entityTotals: [...entityTotals.values()], providerTotals: [...totals.values()] };
}
