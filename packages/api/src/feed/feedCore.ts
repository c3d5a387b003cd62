import type { Logger } from "pino";
import type { Services } from "../services/createServices.ts";
import type { EventRecord } from "../services/types.ts";
import type { FeedHub } from "./createFeedHub.ts";
import type { FeedConnection } from "./feedConnection.ts";
import type { ClosableAsyncIterator } from "./mapAsyncIterator.ts";
import type { FeedCursor } from "./openFeedCursor.ts";
import type { FeedCloseReason, FeedFilter, FeedKind, FeedOptions } from "./types.ts";

/** Arguments of the GraphQL `ledgerEvents` subscription, as the resolver passes them. */
export interface FeedSubscribeArgs {
  agentId: string | null;
  minAmountWei: bigint | null;
  afterId: string | null;
}

/** The feed as the GraphQL context sees it on /graphql/stream (bound to the client's stream connection). */
export interface FeedSource {
  subscribe(args: FeedSubscribeArgs): Promise<ClosableAsyncIterator<EventRecord>>;
}

/** What the two transports share: validation, readiness, and cursors over the one hub. */
export interface FeedCore {
  readonly options: FeedOptions;
  readonly hub: FeedHub;
  readonly log: Logger;
  readonly services: Services;
  /** Checks the filter values (an unknown agent id is `not_found`). */
  resolveFilter(agentId: string | null, minAmountWei: bigint | null): Promise<FeedFilter>;
  /** Waits for the hub's first LISTEN connection (`feed_unavailable` after readyTimeoutMs). */
  whenReady(): Promise<void>;
  openCursor(args: {
    kind: FeedKind;
    filter: FeedFilter;
    afterId: bigint | null;
    connection: FeedConnection;
    offer(row: EventRecord): boolean;
    offerPage?(rows: readonly EventRecord[]): boolean;
    onClose(reason: FeedCloseReason): void;
    onLive?(position: bigint): void;
  }): FeedCursor;
  /** A FeedSource whose iterators write to `connection`. */
  source(connection: FeedConnection): FeedSource;
}
