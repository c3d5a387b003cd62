import type { FeedKind } from "./types.ts";

/** What the feed hub reports about itself (createFeedHub's `stats()`, exposed as `Feed.stats()`). */
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
