import { ACTIVITY_KINDS, type EventDraft } from "@agent-ledger/core";

/** A matcher trace note (v0.2 `V02Trace`, v0.3 `V03Trace`): why a transfer is not plainly its recipient's payment. */
export interface DiffNote {
  txHash: string;
  logIndex: number;
  note: string;
  /** v0.3: the entity the note is about, when it concerns one side of the payment only. */
  agentId?: string;
}

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
  /**
   * Row by row — a row is (tx_hash, log_index, agent_id): rows of `from` that `to` does not have, rows `to` adds, and
   * rows of both that differ (kind, counterparty, amount, token or routing), each by reason: the `to` trace note about
   * that row (or its payment), e.g. `charge_of_service` (removed), `now_attributed_to_service` (added, `now_` + note),
   * `session_payout` (changed); without a note `no_row` / `no_row_before` / `changed_<fields>`.
   */
  rows: { removed: Map<string, RowReason>; added: Map<string, RowReason>; changed: Map<string, RowReason> };
}

export interface RowReason {
  rows: number;
  volumeWei: bigint;
}

const emptyVersion = (): VersionTotals => ({ rows: 0, payments: 0, volumeWei: 0n, volumeByToken: new Map(), rowsByKind: new Map() });
const emptyEntity = (): EntityTotals => ({ rows: 0, sentCount: 0, sentWei: 0n, receivedCount: 0, receivedWei: 0n });

export function createDiffAccumulator(): DiffAccumulator {
  return {
    from: emptyVersion(),
    to: emptyVersion(),
    entities: new Map(),
    removed: new Map(),
    added: new Map(),
    rerouted: 0,
    rows: { removed: new Map(), added: new Map(), changed: new Map() },
  };
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

function bumpRow(m: Map<string, RowReason>, reason: string, amount: bigint): void {
  const r = m.get(reason) ?? { rows: 0, volumeWei: 0n };
  r.rows++;
  r.volumeWei += amount;
  m.set(reason, r);
}

/** The fields a row keeps across versions (v0.3's attribution / client / channel are new, not a change). */
const COMPARED = ["kind", "counterpartyAddress", "amountWei", "tokenAddress", "routedToAddress", "routedToLabel", "routedFingerprint"] as const;

/**
 * Folds one page of rows matched under two versions (same raw logs) into the accumulator. `trace` is the `to`
 * matcher's notes (v0.2 or v0.3): why a transfer touching a watched wallet is not a plain payment of its recipient.
 */
export function summarizeDiff(acc: DiffAccumulator, fromRows: readonly EventDraft[], toRows: readonly EventDraft[], trace: readonly DiffNote[] = []): void {
  const fromPayments = addVersion(acc.from, fromRows, "from", acc);
  const toPayments = addVersion(acc.to, toRows, "to", acc);
  // A payment's note: its last note about the whole payment, else its first note about one side.
  const notes = new Map<string, string>();
  const sideNotes = new Map<string, string>();
  const firstSideNote = new Map<string, string>();
  for (const t of trace) {
    const k = `${t.txHash}:${t.logIndex}`;
    if (t.agentId === undefined) notes.set(k, t.note);
    else {
      sideNotes.set(`${k}:${t.agentId}`, t.note);
      if (!firstSideNote.has(k)) firstSideNote.set(k, t.note);
    }
  }
  const noteOf = (k: string) => notes.get(k) ?? firstSideNote.get(k);
  const rowNote = (r: EventDraft) => sideNotes.get(`${key(r)}:${r.agentId}`) ?? noteOf(key(r));
  const toAny = new Map(toRows.map((r) => [key(r), r]));
  const fromAny = new Map(fromRows.map((r) => [key(r), r]));
  for (const [k, r] of fromPayments) {
    if (toPayments.has(k)) continue;
    const other = toAny.get(k);
    bump(acc.removed, noteOf(k) ?? (other ? `now_${other.kind}` : "no_row"), r.amountWei);
  }
  for (const [k, r] of toPayments) {
    if (fromPayments.has(k)) continue;
    const other = fromAny.get(k);
    const note = noteOf(k);
    bump(acc.added, note ? `now_${note}` : other ? `was_${other.kind}` : "no_row_before", r.amountWei);
  }
  const toRowsByFull = new Map(toRows.map((r) => [`${key(r)}:${r.agentId}`, r]));
  const fromRowsByFull = new Set(fromRows.map((r) => `${key(r)}:${r.agentId}`));
  for (const r of fromRows) {
    const o = toRowsByFull.get(`${key(r)}:${r.agentId}`);
    if (!o) {
      bumpRow(acc.rows.removed, rowNote(r) ?? "no_row", r.amountWei);
      continue;
    }
    if (o.routedToAddress !== r.routedToAddress || o.routedFingerprint !== r.routedFingerprint) acc.rerouted++;
    const changed = COMPARED.filter((f) => o[f] !== r[f]);
    if (changed.length > 0) bumpRow(acc.rows.changed, rowNote(o) ?? `changed_${changed.join("_")}`, o.amountWei);
  }
  for (const r of toRows) {
    if (fromRowsByFull.has(`${key(r)}:${r.agentId}`)) continue;
    const note = rowNote(r);
    bumpRow(acc.rows.added, note ? `now_${note}` : "no_row_before", r.amountWei);
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
  const entity = (e: EntityTotals) => ({
    rows: e.rows,
    sent_count: e.sentCount,
    sent_wei: e.sentWei.toString(),
    received_count: e.receivedCount,
    received_wei: e.receivedWei.toString(),
  });
  const rowReasons = (m: Map<string, RowReason>) =>
    Object.fromEntries([...m].sort().map(([k, v]) => [k, { rows: v.rows, volume_wei: v.volumeWei.toString() }]));
  const reasons = (m: Map<string, DiffReason>) =>
    Object.fromEntries([...m].sort().map(([k, v]) => [k, { payments: v.payments, volume_wei: v.volumeWei.toString() }]));
  return {
    from: fromVersion,
    to: toVersion,
    global: { before: version(acc.from), after: version(acc.to) },
    why: {
      no_longer_activity: reasons(acc.removed),
      new_activity: reasons(acc.added),
      rows_rerouted: acc.rerouted,
      rows: { removed: rowReasons(acc.rows.removed), added: rowReasons(acc.rows.added), changed: rowReasons(acc.rows.changed) },
    },
    entities: Object.fromEntries(
      [...acc.entities].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, e]) => [id, { before: entity(e.from), after: entity(e.to) }]),
    ),
  };
}
