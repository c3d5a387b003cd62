import { createPgListener, type PgListener } from "@agent-ledger/runtime";
import type pg from "pg";
import type { Logger } from "pino";
import type { Db, EventRecord } from "../services/types.ts";
import { loadLiveRowsAfter, loadLivePosition } from "./loadFeedRows.ts";
import type { FeedCloseReason, FeedKind } from "./types.ts";

/** The channel the indexer NOTIFYs in the transaction that commits rows (packages/indexer/src/store/writeBatch.ts). */
export const EVENTS_CHANNEL = "agent_events";

/** One consumer of the hub. `onRows` is called synchronously, in id order, with rows the subscriber has not seen. */
export interface HubSubscriber {
  readonly kind: FeedKind;
  /**
   * Invariant: every subscriber gets the same page array (and the same row objects) for a load, and none mutates it:
   * transports cache what they build from it per page and per row (encodeFeedPage, encodeFeedFrame).
   */
  onRows(rows: readonly EventRecord[]): void;
  /** The hub is stopping: the subscriber ends (reason `server_stop`). */
  onClose(reason: FeedCloseReason): void;
}

export interface FeedHubStats {
  /** Open subscriptions per surface. */
  subscribers: Record<FeedKind, number>;
  /** Subscribers dropped because their buffer overflowed, since start, per surface. */
  dropped: Record<FeedKind, number>;
  /** Rows pushed to the hub (before per-subscriber filters), since start. */
  rowsLoaded: number;
  /** Highest live-version id the hub has pushed (null before the first connection). */
  lastSeenId: string | null;
  /** Whether the LISTEN connection is up. */
  listening: boolean;
  /** LISTEN connections made after the first (reconnects). */
  reconnects: number;
}

export interface FeedHub {
  /** Resolves once the first LISTEN connection is up and the start position is known. */
  ready(): Promise<void>;
  isReady(): boolean;
  /** Highest id pushed so far: a subscriber added now receives exactly the rows with a greater id. */
  position(): bigint;
  /** Adds a subscriber; returns its unsubscribe function (idempotent). */
  subscribe(subscriber: HubSubscriber): () => void;
  /** Open subscriptions (all surfaces, or one), for metrics. */
  subscriberCount(kind?: FeedKind): number;
  /** Counts a drop (called by the subscriber that overflowed). */
  recordDrop(kind: FeedKind): void;
  stats(): FeedHubStats;
  /** Loads new rows now (a NOTIFY or the poll timer calls this). */
  wake(): void;
  start(): void;
  /** Stops listening and polling and closes every subscriber (`server_stop`). */
  stop(): Promise<void>;
}

export interface FeedHubDeps {
  db: Db;
  version: string;
  log: Logger;
  listenClient: () => pg.Client;
  pollMs: number;
  pageSize: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

/**
 * Fan-out of new `agent_events` rows, one per API process. A dedicated connection LISTENs on `agent_events` (runtime
 * createPgListener: reconnects with backoff); a notification (or the poll timer, or a reconnect) only wakes the hub,
 * which then reads every live-version row with `id > lastSeenId` in id order, page by page, and hands each page to
 * every subscriber synchronously. The payload's id range is not trusted: a missed or coalesced notification is healed
 * by the next load. Subscribers bound their own buffers (openFeedCursor.ts); the hub never waits for one.
 *
 * Assumes rows of the live version become visible in id order — true while the indexer is their only writer (one
 * transaction per batch, one indexer per stream under its advisory lock). See docs/api.md "Live feed".
 */
export function createFeedHub(deps: FeedHubDeps): FeedHub {
  const log = deps.log.child({ component: "feed-hub" });
  const subscribers = new Set<HubSubscriber>();
  const dropped: Record<FeedKind, number> = { sse: 0, graphql: 0 };
  let lastSeenId: bigint | null = null;
  let rowsLoaded = 0;
  let stopped = false;
  let listener: PgListener | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  let markReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (markReady = resolve));
  const loader = coalesce(loadNewRows, (error) => log.warn({ err: error.message }, "feed hub could not load new rows (retried on the next wake-up)"));

  function wake(): void {
    if (!stopped && lastSeenId !== null) loader.run();
  }

  /** Reads the rows after lastSeenId page by page and pushes each page to every subscriber. */
  async function loadNewRows(): Promise<void> {
    while (!stopped) {
      const rows = await loadLiveRowsAfter({ db: deps.db, version: deps.version }, lastSeenId!, deps.pageSize);
      if (stopped || rows.length === 0) return;
      push(rows);
      if (rows.length < deps.pageSize) return;
    }
  }

  /** Push and advance in one synchronous step: a subscriber added in between sees position() = lastSeenId and then exactly the rows after it. */
  function push(rows: readonly EventRecord[]): void {
    lastSeenId = rows[rows.length - 1]!.id;
    rowsLoaded += rows.length;
    for (const s of [...subscribers]) {
      try {
        s.onRows(rows);
      } catch (error) {
        log.error({ err: error }, "feed subscriber failed on push");
      }
    }
  }

  /** After each (re)connect: the first time, LISTEN first and then read the position (a row committed in between is either history or notified); then catch up. */
  async function onListening({ first }: { first: boolean }): Promise<void> {
    if (first) {
      lastSeenId = await loadLivePosition({ db: deps.db, version: deps.version });
      markReady();
      log.info({ lastSeenId: lastSeenId.toString() }, "feed hub listening");
    } else {
      log.info({ lastSeenId: lastSeenId!.toString() }, "feed hub listening again; catching up");
    }
    wake();
  }

  function start(): void {
    if (listener || stopped) return;
    listener = createPgListener({
      name: "feed-hub",
      channels: [EVENTS_CHANNEL],
      client: deps.listenClient,
      onNotification: (channel) => {
        if (channel === EVENTS_CHANNEL) wake();
      },
      onConnect: onListening,
      log,
      backoff: { baseMs: deps.reconnectMinMs, maxMs: deps.reconnectMaxMs },
    });
    pollTimer = setInterval(wake, deps.pollMs);
    pollTimer.unref();
  }

  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    if (pollTimer) clearInterval(pollTimer);
    await listener?.close();
    await loader.idle();
    for (const s of [...subscribers]) s.onClose("server_stop");
    subscribers.clear();
  }

  function stats(): FeedHubStats {
    const count = { sse: 0, graphql: 0 };
    for (const s of subscribers) count[s.kind]++;
    return {
      subscribers: count,
      dropped: { ...dropped },
      rowsLoaded,
      lastSeenId: lastSeenId?.toString() ?? null,
      listening: listener?.isListening() ?? false,
      reconnects: listener?.reconnects() ?? 0,
    };
  }

  return {
    ready: () => readyPromise,
    isReady: () => lastSeenId !== null,
    position() {
      if (lastSeenId === null) throw new Error("feed hub is not ready");
      return lastSeenId;
    },
    subscribe(subscriber) {
      subscribers.add(subscriber);
      return () => void subscribers.delete(subscriber);
    },
    subscriberCount: (kind) => (kind ? [...subscribers].filter((s) => s.kind === kind).length : subscribers.size),
    recordDrop(kind) {
      dropped[kind]++;
    },
    stats,
    wake,
    start,
    stop,
  };
}

/** Runs `task` one at a time: a call while it runs asks for one more run after it (calls in between coalesce). */
function coalesce(task: () => Promise<void>, onError: (error: Error) => void): { run(): void; idle(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  return {
    run() {
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          await task().catch(onError);
        } while (again);
      })().finally(() => (running = null));
    },
    idle: async () => void (await running),
  };
}
