import type pg from "pg";
import type { EventRecord } from "../services/types.ts";

/** The 404 `feed_disabled` message of both feed endpoints. */
export const FEED_DISABLED_MESSAGE = "the live feed is disabled on this deployment (NEXT_PUBLIC_LIVE_FEED=1 enables it)";

/** Which surface a subscriber came from (metrics label). */
export type FeedKind = "sse" | "graphql";

/** Why a subscriber stopped receiving rows. */
export type FeedCloseReason = "client_closed" | "overflow" | "server_stop" | "error";

/** Row filters of one subscriber (ANDed; null = no condition). */
export interface FeedFilter {
  /** `agent_events.agent_id` equals this (a watched agent or service id). */
  agentId: string | null;
  /** `amount_wei` is at least this. */
  minAmountWei: bigint | null;
}

export const NO_FILTER: FeedFilter = { agentId: null, minAmountWei: null };

export function matchesFilter(row: EventRecord, filter: FeedFilter): boolean {
  return (filter.agentId === null || row.agentId === filter.agentId) && (filter.minAmountWei === null || row.amountWei >= filter.minAmountWei);
}

/** Live feed settings (env: NEXT_PUBLIC_LIVE_FEED, FEED_*; docs/api.md "Live feed"). */
export interface FeedOptions {
  /** `/api/feed` and `/graphql/stream` answer 404 `feed_disabled` unless true (NEXT_PUBLIC_LIVE_FEED=1). */
  enabled: boolean;
  /** SSE `: ping` comment interval (default 15 s). */
  heartbeatMs: number;
  /** The hub re-reads new rows this often even without a NOTIFY (default 5 s): heals a missed notification. */
  pollMs: number;
  /** SSE `retry:` value sent first (default 2 s): how long an EventSource waits before reconnecting. */
  retryMs: number;
  /** Rows a subscriber may have waiting (its connection cannot take them yet) before it is dropped (default 1000). */
  maxBufferedRows: number;
  /** Rows per query, for the hub's loads and for replays (default 500). */
  pageSize: number;
  /** How long a new subscriber waits for the hub's first LISTEN connection before 503 (default 5 s). */
  readyTimeoutMs: number;
  /** LISTEN reconnect backoff: first delay, doubled up to the maximum (defaults 250 ms … 10 s), with jitter. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** The dedicated LISTEN connection (default: a new pg.Client with the pool's connection settings). */
  listenClient?: () => pg.Client;
}

export const DEFAULT_FEED_OPTIONS: FeedOptions = {
  enabled: false,
  heartbeatMs: 15_000,
  pollMs: 5_000,
  retryMs: 2_000,
  maxBufferedRows: 1_000,
  pageSize: 500,
  readyTimeoutMs: 5_000,
  reconnectMinMs: 250,
  reconnectMaxMs: 10_000,
};
