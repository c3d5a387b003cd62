import pg from "pg";
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
 * Fan-out of new `agent_events` rows, one per API process. A dedicated connection LISTENs on `agent_events`; a
 * notification (or the poll timer, or a reconnect) only wakes the hub, which then reads every live-version row with
 * `id > lastSeenId` in id order, page by page, and hands each page to every subscriber synchronously. The payload's
 * id range is not trusted: a missed or coalesced notification is healed by the next load. Subscribers bound their
 * own buffers (openFeedCursor.ts); the hub never waits for one.
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
  let listening = false;
  let connections = 0;
  let started = false;
  let stopped = false;
  let client: pg.Client | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  let loading: Promise<void> | null = null;
  let again = false;
  let sleeping: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  let connectLoop: Promise<void> | null = null;

  let markReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (markReady = resolve));

  function wake(): void {
    if (stopped || lastSeenId === null) return;
    if (loading) {
      again = true;
      return;
    }
    loading = (async () => {
      do {
        again = false;
        try {
          await loadNewRows();
        } catch (error) {
          log.warn({ err: (error as Error).message }, "feed hub could not load new rows (retried on the next wake-up)");
        }
      } while (again && !stopped);
    })().finally(() => (loading = null));
  }

  async function loadNewRows(): Promise<void> {
    for (;;) {
      const after = lastSeenId!;
      const rows = await loadLiveRowsAfter({ db: deps.db, version: deps.version }, after, deps.pageSize);
      if (stopped || rows.length === 0) return;
      // Push and advance in one synchronous step: a subscriber added in between sees position() = lastSeenId and
      // then exactly the rows after it.
      lastSeenId = rows[rows.length - 1]!.id;
      rowsLoaded += rows.length;
      for (const s of [...subscribers]) {
        try {
          s.onRows(rows);
        } catch (error) {
          log.error({ err: error }, "feed subscriber failed on push");
        }
      }
      if (rows.length < deps.pageSize) return;
    }
  }

  function sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      sleeping = { timer: setTimeout(() => ((sleeping = null), resolve()), ms), resolve };
    });
  }

  async function runConnection(): Promise<void> {
    const c = deps.listenClient();
    client = c;
    const closed = new Promise<Error | null>((resolve) => {
      c.once("error", (err) => resolve(err));
      c.once("end", () => resolve(null));
    });
    c.on("error", () => {}); // the first error ends this connection (above); later ones are the same failure
    c.on("notification", (msg) => {
      if (msg.channel === EVENTS_CHANNEL) wake();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (lastSeenId === null) {
        // LISTEN first, then read the position: a row committed in between is either history or notified.
        lastSeenId = await loadLivePosition({ db: deps.db, version: deps.version });
        markReady();
        log.info({ lastSeenId: lastSeenId.toString() }, "feed hub listening");
      } else {
        log.info({ lastSeenId: lastSeenId.toString() }, "feed hub listening again; catching up");
      }
      connections++;
      listening = true;
      wake(); // catch up on anything committed while not listening
    } catch (error) {
      await c.end().catch(() => {});
      throw error;
    }
    const reason = await closed;
    listening = false;
    if (!stopped) log.warn({ err: reason?.message }, "feed hub LISTEN connection lost");
    await c.end().catch(() => {});
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
    subscriberCount(kind) {
      if (!kind) return subscribers.size;
      let n = 0;
      for (const s of subscribers) if (s.kind === kind) n++;
      return n;
    },
    recordDrop(kind) {
      dropped[kind]++;
    },
    stats() {
      const count = { sse: 0, graphql: 0 };
      for (const s of subscribers) count[s.kind]++;
      return {
        subscribers: count,
        dropped: { ...dropped },
        rowsLoaded,
        lastSeenId: lastSeenId?.toString() ?? null,
        listening,
        reconnects: Math.max(0, connections - 1),
      };
    },
    wake,
    start() {
      if (started) return;
      started = true;
      connectLoop = (async () => {
        let delay = deps.reconnectMinMs;
        while (!stopped) {
          const before = connections;
          try {
            await runConnection();
          } catch (error) {
            if (!stopped) log.warn({ err: (error as Error).message, retryInMs: delay }, "feed hub cannot LISTEN");
          }
          client = null;
          if (stopped) break;
          if (connections > before) delay = deps.reconnectMinMs; // it was up: start the backoff over
          await sleep(delay * (0.8 + Math.random() * 0.4));
          delay = Math.min(delay * 2, deps.reconnectMaxMs);
        }
      })();
      pollTimer = setInterval(wake, deps.pollMs);
      pollTimer.unref();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (pollTimer) clearInterval(pollTimer);
      if (sleeping) {
        clearTimeout(sleeping.timer);
        sleeping.resolve();
      }
      await client?.end().catch(() => {});
      // a connection attempt to an unreachable server may not end promptly: do not hold the shutdown for it
      await Promise.race([connectLoop, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await loading;
      for (const s of [...subscribers]) s.onClose("server_stop");
      subscribers.clear();
    },
  };
}
