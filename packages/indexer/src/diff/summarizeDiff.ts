import { ACTIVITY_KINDS, type EventDraft, type V02Trace } from "@agent-ledger/core";

/** Totals of one version's rows: rows, distinct activity payments and their volume (raw units, per token). */
export interface VersionTotals {
  rows: number;
  payments: number;
  volumeWei: bigint;
  volumeByToken: Map<string, bigint>;
  rowsByKind: Map<string, number>;
}

export interface EntityTotals {
  rows: number;
  sentCount: number;
  sentWei: bigint;
  receivedCount: number;
  receivedWei: bigint;
}

/** Why a payment that counted as activity under `from` does not under `to`, with how many and how much. */
export interface DiffReason {
  payments: number;
  volumeWei: bigint;
}

export interface DiffAccumulator {
  from: VersionTotals;
  to: VersionTotals;
  entities: Map<string, { from: EntityTotals; to: EntityTotals }>;
  /** Activity payments of `from` that are not activity under `to`, by reason (v0.2 trace note, or the new kind). */
  removed: Map<string, DiffReason>;
  /** Activity payments of `to` that were not activity under `from`. */
  added: Map<string, DiffReason>;
  /** Rows present in both versions whose routing (routed_to_address / routed_fingerprint) changed. */
  rerouted: number;
}

const emptyVersion = (): VersionTotals => ({ rows: 0, payments: 0, volumeWei: 0n, volumeByToken: new Map(), rowsByKind: new Map() });
const emptyEntity = (): EntityTotals => ({ rows: 0, sentCount: 0, sentWei: 0n, receivedCount: 0, receivedWei: 0n });

export function createDiffAccumulator(): DiffAccumulator {
  return { from: emptyVersion(), to: emptyVersion(), entities: new Map(), removed: new Map(), added: new Map(), rerouted: 0 };
}

const key = (r: { txHash: string; logIndex: number }) => `${r.txHash}:${r.logIndex}`;

function addVersion(t: VersionTotals, rows: readonly EventDraft[], side: "from" | "to", acc: DiffAccumulator): Map<string, EventDraft> {
  const payments = new Map<string, EventDraft>();
  for (const r of rows) {
    t.rows++;
    t.rowsByKind.set(r.kind, (t.rowsByKind.get(r.kind) ?? 0) + 1);
    let e = acc.entities.get(r.agentId);
    if (!e) acc.entities.set(r.agentId, (e = { from: emptyEntity(), to: emptyEntity() }));
    const et = e[side];
    et.rows++;
    if (r.kind === "payment_sent") {
      et.sentCount++;
      et.sentWei += r.amountWei;
    } else if (r.kind === "payment_received") {
      et.receivedCount++;
      et.receivedWei += r.amountWei;
    }
    if (ACTIVITY_KINDS.has(r.kind) && !payments.has(key(r))) {
      payments.set(key(r), r);
      t.payments++;
      t.volumeWei += r.amountWei;
      t.volumeByToken.set(r.tokenAddress, (t.volumeByToken.get(r.tokenAddress) ?? 0n) + r.amountWei);
    }
  }
  return payments;
}

function bump(m: Map<string, DiffReason>, reason: string, amount: bigint): void {
  const r = m.get(reason) ?? { payments: 0, volumeWei: 0n };
  r.payments++;
  r.volumeWei += amount;
  m.set(reason, r);
}

/**
 * Folds one page of rows matched under two versions (same raw logs) into the accumulator. `trace` is the
 * v0.2 matcher's notes for the `to` side (why a transfer touching a watched wallet is not a plain payment).
 */
export function summarizeDiff(acc: DiffAccumulator, fromRows: readonly EventDraft[], toRows: readonly EventDraft[], trace: readonly V02Trace[] = []): void {
  const fromPayments = addVersion(acc.from, fromRows, "from", acc);
  const toPayments = addVersion(acc.to, toRows, "to", acc);
  const notes = new Map(trace.map((t) => [`${t.txHash}:${t.logIndex}`, t.note as string]));
  const toAny = new Map(toRows.map((r) => [key(r), r]));
  const fromAny = new Map(fromRows.map((r) => [key(r), r]));
  for (const [k, r] of fromPayments) {
    if (toPayments.has(k)) continue;
    const other = toAny.get(k);
    bump(acc.removed, notes.get(k) ?? (other ? `now_${other.kind}` : "no_row"), r.amountWei);
  }
  for (const [k, r] of toPayments) {
    if (fromPayments.has(k)) continue;
    const other = fromAny.get(k);
    bump(acc.added, other ? `was_${other.kind}` : "no_row_before", r.amountWei);
  }
  const toRowsByFull = new Map(toRows.map((r) => [`${key(r)}:${r.agentId}`, r]));
  for (const r of fromRows) {
    const o = toRowsByFull.get(`${key(r)}:${r.agentId}`);
    if (o && (o.routedToAddress !== r.routedToAddress || o.routedFingerprint !== r.routedFingerprint)) acc.rerouted++;
  }
}

/** The accumulator as JSON-friendly data (amounts as decimal strings). */
export function diffReport(acc: DiffAccumulator, fromVersion: string, toVersion: string) {
  const version = (t: VersionTotals) => ({
    rows: t.rows,
    payments: t.payments,
    volume_wei: t.volumeWei.toString(),
    volume_by_token: Object.fromEntries([...t.volumeByToken].sort().map(([k, v]) => [k, v.toString()])),
    rows_by_kind: Object.fromEntries([...t.rowsByKind].sort()),
  });
  const entity = (e: EntityTotals) => ({ rows: e.rows, sent_count: e.sentCount, sent_wei: e.sentWei.toString(), received_count: e.receivedCount, received_wei: e.receivedWei.toString() });
  const reasons = (m: Map<string, DiffReason>) => Object.fromEntries([...m].sort().map(([k, v]) => [k, { payments: v.payments, volume_wei: v.volumeWei.toString() }]));
  return {
    from: fromVersion,
    to: toVersion,
    global: { before: version(acc.from), after: version(acc.to) },
    why: { no_longer_activity: reasons(acc.removed), new_activity: reasons(acc.added), rows_rerouted: acc.rerouted },
    entities: Object.fromEntries([...acc.entities].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, e]) => [id, { before: entity(e.from), after: entity(e.to) }])),
  };
}
