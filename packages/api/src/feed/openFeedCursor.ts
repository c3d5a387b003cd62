import type { Logger } from "pino";
import type { Db, EventRecord } from "../services/types.ts";
import type { FeedHub, HubSubscriber } from "./createFeedHub.ts";
import type { FeedConnection } from "./feedConnection.ts";
import { loadReplayPage } from "./loadFeedRows.ts";
import { matchesFilter, type FeedCloseReason, type FeedFilter, type FeedKind } from "./types.ts";

export interface FeedCursorOptions {
  hub: FeedHub;
  db: Db;
  version: string;
  log: Logger;
  kind: FeedKind;
  filter: FeedFilter;
  /** Resume after this id (replaying from the database first); null = start live at the hub's position. */
  afterId: bigint | null;
  maxBufferedRows: number;
  pageSize: number;
  /** The client's connection: room to write, "room again" events, and how to drop it. */
  connection: FeedConnection;
  /** Hands one row to the transport; false when it cannot take it now (the cursor retries on the next kick). */
  offer(row: EventRecord): boolean;
  /**
   * Optional fast path: hands a whole hub page (the same array object for every subscriber, rows in id order) to the
   * transport at once; false when it cannot take it now or does not want it (the rows then take the per-row path).
   * Only called for a page whose rows are all new and all match the filter, while nothing is waiting.
   */
  offerPage?(rows: readonly EventRecord[]): boolean;
  /** Called once when the cursor ends. */
  onClose(reason: FeedCloseReason): void;
  /**
   * Called once when the stream goes live — at once for a live start, after the replay otherwise — with the id
   * everything up to which has been delivered (a resume position), before any live row is offered.
   */
  onLive?(position: bigint): void;
}

export interface FeedCursor {
  /** The id the stream starts after (the resume id, or the hub's position for a live start). */
  readonly startId: bigint;
  /** Highest id handed to the transport. */
  lastDeliveredId(): bigint;
  /** The transport may take rows again (a pending read, a drained socket). */
  kick(): void;
  close(reason: FeedCloseReason): void;
  closedReason(): FeedCloseReason | null;
}

/**
 * One subscriber's ordered, gapless, duplicate-free row stream: subscribe to the hub first (rows arriving from now on
 * are buffered), replay `id > afterId` from the database in pages, then hand over the buffer, skipping ids already
 * replayed. Rows leave the buffer only when the connection has room; when more than `maxBufferedRows` wait, the
 * subscriber is dropped (`overflow`) and its connection closed — the client resumes with its last id.
 * Requires `hub.isReady()`.
 */
export function openFeedCursor(o: FeedCursorOptions): FeedCursor {
  const startId = o.afterId ?? o.hub.position();
  const queue: EventRecord[] = [];
  let head = 0; // queue[head..] are waiting (shifting a long array is O(n))
  let lastDelivered = startId;
  let replaying = o.afterId !== null;
  let closed: FeedCloseReason | null = null;
  let replayWaiter: (() => void) | null = null;

  const waiting = () => queue.length - head;
  const unfiltered = o.filter.agentId === null && o.filter.minAmountWei === null;

  const subscriber: HubSubscriber = {
    kind: o.kind,
    onRows(rows) {
      if (closed) return;
      // Fast path (the common live case): live, nothing waiting, the whole page is new and matches → the transport may
      // take it as one (one shared frame, one write). Same rows, same order as the per-row path below: the page's ids
      // are increasing and all above lastDelivered, so nothing is skipped or repeated.
      if (
        o.offerPage &&
        !replaying &&
        head === queue.length &&
        rows.length > 0 &&
        rows[0]!.id > lastDelivered &&
        (unfiltered || rows.every((row) => matchesFilter(row, o.filter))) &&
        o.offerPage(rows)
      ) {
        lastDelivered = rows[rows.length - 1]!.id;
        queue.length = 0;
        head = 0;
        return;
      }
      for (const row of rows) if (row.id > lastDelivered && matchesFilter(row, o.filter)) queue.push(row);
      flush();
      if (waiting() > o.maxBufferedRows) {
        o.log.info(
          { kind: o.kind, waiting: waiting(), limit: o.maxBufferedRows, lastDelivered: lastDelivered.toString() },
          "feed subscriber dropped: buffer overflow",
        );
        o.hub.recordDrop(o.kind);
        close("overflow");
      }
    },
    onClose: (reason) => close(reason),
  };
  const unsubscribe = o.hub.subscribe(subscriber);
  const offRoom = o.connection.onRoom(() => kick());

  function flush(): void {
    if (replaying) return;
    while (!closed && head < queue.length) {
      const row = queue[head]!;
      if (row.id <= lastDelivered) {
        head++;
        continue;
      }
      if (!o.offer(row)) break;
      head++;
      lastDelivered = row.id;
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  }

  function kick(): void {
    if (closed) return;
    if (replaying) {
      const w = replayWaiter;
      replayWaiter = null;
      w?.();
    } else flush();
  }

  function close(reason: FeedCloseReason): void {
    if (closed) return;
    closed = reason;
    unsubscribe();
    offRoom();
    queue.length = 0;
    head = 0;
    const w = replayWaiter;
    replayWaiter = null;
    w?.();
    if (reason === "overflow") o.connection.drop();
    o.onClose(reason);
  }

  async function replay(): Promise<void> {
    let after = startId;
    for (;;) {
      const rows = await loadReplayPage({ db: o.db, version: o.version }, after, o.filter, o.pageSize);
      for (const row of rows) {
        while (!closed && !o.offer(row)) await new Promise<void>((resolve) => (replayWaiter = resolve));
        if (closed) return;
        lastDelivered = row.id;
      }
      // A short page: everything committed when it was read is replayed, which includes every row up to the hub's
      // position when we subscribed; later rows are in the buffer.
      if (rows.length < o.pageSize) break;
      after = rows[rows.length - 1]!.id;
    }
    if (closed) return;
    replaying = false;
    o.onLive?.(lastDelivered);
    flush();
  }

  if (replaying) {
    replay().catch((error) => {
      o.log.warn({ err: (error as Error).message }, "feed replay failed");
      close("error");
    });
  } else o.onLive?.(startId);

  return {
    startId,
    lastDeliveredId: () => lastDelivered,
    kick,
    close,
    closedReason: () => closed,
  };
}
