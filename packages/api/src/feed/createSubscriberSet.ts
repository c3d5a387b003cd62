import type { EventRecord } from "../services/types.ts";
import type { FeedCloseReason, FeedKind } from "./types.ts";

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

export interface SubscriberSet {
  /** Adds a subscriber; returns its removal (idempotent). */
  add(subscriber: HubSubscriber): () => void;
  /** Open subscriptions (all surfaces, or one). */
  count(kind?: FeedKind): number;
  /** Open subscriptions per surface. */
  countByKind(): Record<FeedKind, number>;
  /** Counts a subscriber dropped because its buffer overflowed. */
  recordDrop(kind: FeedKind): void;
  /** Drops counted since start, per surface (a copy). */
  dropped(): Record<FeedKind, number>;
  /**
   * Hands `rows` (the same array) to every subscriber present when the call starts, synchronously; one that throws is
   * reported to `onError` and the others still get the page.
   */
  push(rows: readonly EventRecord[]): void;
  /** Closes every subscriber with `reason` and forgets them all. */
  closeAll(reason: FeedCloseReason): void;
}

/** The hub's subscriber bookkeeping and fan-out. No I/O; `onError` hears a subscriber that failed on a push. */
export function createSubscriberSet(onError: (error: unknown) => void): SubscriberSet {
  const subscribers = new Set<HubSubscriber>();
  const dropped: Record<FeedKind, number> = { sse: 0, graphql: 0 };
  return {
    add(subscriber) {
      subscribers.add(subscriber);
      return () => void subscribers.delete(subscriber);
    },
    count: (kind) => (kind ? [...subscribers].filter((s) => s.kind === kind).length : subscribers.size),
    countByKind() {
      const count = { sse: 0, graphql: 0 };
      for (const s of subscribers) count[s.kind]++;
      return count;
    },
    recordDrop(kind) {
      dropped[kind]++;
    },
    dropped: () => ({ ...dropped }),
    push(rows) {
      for (const s of [...subscribers]) {
        try {
          s.onRows(rows);
        } catch (error) {
          onError(error);
        }
      }
    },
    closeAll(reason) {
      for (const s of [...subscribers]) s.onClose(reason);
      subscribers.clear();
    },
  };
}
