import { coalesceRuns } from "@agent-ledger/core";
import type { PgListener } from "@agent-ledger/runtime";
import type pg from "pg";
import type { Logger } from "pino";
import type { Db, EventRecord } from "../services/types.ts";
import { createSubscriberSet, type HubSubscriber } from "./createSubscriberSet.ts";
import type { FeedHubStats } from "./feedHubStats.ts";
import { listenForEvents } from "./listenForEvents.ts";
import { loadLivePosition } from "./loadFeedRows.ts";
import { loadNewRows } from "./loadNewRows.ts";
import { startPolling } from "./startPolling.ts";
import type { FeedKind } from "./types.ts";

export type { HubSubscriber } from "./createSubscriberSet.ts";
export type { FeedHubStats } from "./feedHubStats.ts";
export { EVENTS_CHANNEL } from "./listenForEvents.ts";

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
  const subscribers = createSubscriberSet((error) => log.error({ err: error }, "feed subscriber failed on push"));
  let lastSeenId: bigint | null = null;
  let rowsLoaded = 0;
  let stopped = false;
  let listener: PgListener | null = null;
  let stopPolling: (() => void) | null = null;
  let markReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (markReady = resolve));

  // Push and advance in one synchronous step: a subscriber added in between sees position() = lastSeenId and then exactly the rows after it.
  const push = (rows: readonly EventRecord[]) => {
    lastSeenId = rows[rows.length - 1]!.id;
    rowsLoaded += rows.length;
    subscribers.push(rows);
  };
  const loader = coalesceRuns(
    () => loadNewRows({ db: deps.db, version: deps.version, pageSize: deps.pageSize }, { after: () => lastSeenId!, stopped: () => stopped, push }),
    (error) => log.warn({ err: error.message }, "feed hub could not load new rows (retried on the next wake-up)"),
  );
  const wake = () => {
    if (!stopped && lastSeenId !== null) loader.run();
  };
  const onFirstConnect = async () => {
    lastSeenId = await loadLivePosition({ db: deps.db, version: deps.version });
    markReady();
    log.info({ lastSeenId: lastSeenId.toString() }, "feed hub listening");
  };

  return {
    ready: () => readyPromise,
    isReady: () => lastSeenId !== null,
    position() {
      if (lastSeenId === null) throw new Error("feed hub is not ready");
      return lastSeenId;
    },
    subscribe: (subscriber) => subscribers.add(subscriber),
    subscriberCount: (kind) => subscribers.count(kind),
    recordDrop: (kind) => subscribers.recordDrop(kind),
    stats: () => ({
      subscribers: subscribers.countByKind(),
      dropped: subscribers.dropped(),
      rowsLoaded,
      lastSeenId: lastSeenId?.toString() ?? null,
      listening: listener?.isListening() ?? false,
      reconnects: listener?.reconnects() ?? 0,
    }),
    wake,
    start() {
      if (listener || stopped) return;
      listener = listenForEvents(
        { listenClient: deps.listenClient, log, reconnectMinMs: deps.reconnectMinMs, reconnectMaxMs: deps.reconnectMaxMs },
        { wake, onFirstConnect, position: () => lastSeenId! },
      );
      stopPolling = startPolling(wake, deps.pollMs);
    },
    // Stop the wake-ups first, let a load in progress finish (it pushes nothing once stopped), then close every subscriber.
    async stop() {
      if (stopped) return;
      stopped = true;
      stopPolling?.();
      await listener?.close();
      await loader.idle();
      subscribers.closeAll("server_stop");
    },
  };
}
