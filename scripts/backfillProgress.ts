/** What npm start reads once a second while the indexer backfills: its checkpoint, the chain head, raw logs counted. */
export interface BackfillSample {
  /** The indexer's checkpoint (last block written). */
  block: number;
  /** The chain head (eth_blockNumber). */
  head: number;
  /** Logs PostgreSQL has counted into raw_logs so far (pg_stat_user_tables.n_tup_ins). */
  logs: number;
  /** When it was read (ms since the epoch). */
  at: number;
}

/** Blocks behind the head that count as caught up (the indexer then follows the head). */
export const CAUGHT_UP_BLOCKS = 5;

/** 42 → "42 s", 200 → "3 min 20 s", 7380 → "2 h 3 min". */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * The terminal's backfill line at `now`: blocks done / head, logs/s and ETA, the rates averaged since `first` (the
 * first sample of this start-up), so the ETA does not jump with every batch. Null when caught up (within
 * CAUGHT_UP_BLOCKS of the head). Before a second has passed the rates are unknown: "… logs/s", "ETA …".
 */
export function formatBackfillProgress(first: BackfillSample, current: Omit<BackfillSample, "at">, now: number): string | null {
  const behind = current.head - current.block;
  if (behind <= CAUGHT_UP_BLOCKS) return null;
  const seconds = (now - first.at) / 1000;
  const known = seconds >= 1;
  const blocksPerS = known ? Math.max(0, current.block - first.block) / seconds : 0;
  const logsPerS = known ? Math.max(0, current.logs - first.logs) / seconds : 0;
  const n = (x: number) => Math.round(x).toLocaleString("en-US");
  const rate = known ? `${n(logsPerS)} logs/s` : "… logs/s";
  const eta = blocksPerS > 0 ? formatEta(behind / blocksPerS) : "…";
  return `  indexer backfill: block ${n(current.block)} / ${n(current.head)} · ${rate} · ETA ${eta}`;
}
