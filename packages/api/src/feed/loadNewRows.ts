import type { Db, EventRecord } from "../services/types.ts";
import { loadLiveRowsAfter } from "./loadFeedRows.ts";

export interface NewRowsSource {
  db: Db;
  version: string;
  pageSize: number;
}

export interface NewRowsSink {
  /** The highest id already pushed: the next page starts after it. */
  after(): bigint;
  /** True once the hub stops: no further page is read or pushed. */
  stopped(): boolean;
  /** Takes one page (rows in id order, at least one) and advances `after()` to its last id, synchronously. */
  push(rows: readonly EventRecord[]): void;
}

/** Reads the live-version rows after `sink.after()` page by page and pushes each page, until a short page. */
export async function loadNewRows(source: NewRowsSource, sink: NewRowsSink): Promise<void> {
  while (!sink.stopped()) {
    const rows = await loadLiveRowsAfter(source, sink.after(), source.pageSize);
    if (sink.stopped() || rows.length === 0) return;
    sink.push(rows);
    if (rows.length < source.pageSize) return;
  }
}
