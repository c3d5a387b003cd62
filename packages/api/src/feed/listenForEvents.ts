import { createPgListener, type PgListener } from "@agent-ledger/runtime";
import type pg from "pg";
import type { Logger } from "pino";

/** The channel the indexer NOTIFYs in the transaction that commits rows (packages/indexer/src/store/writeBatch.ts). */
export const EVENTS_CHANNEL = "agent_events";

export interface ListenForEventsDeps {
  listenClient: () => pg.Client;
  log: Logger;
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

export interface ListenForEventsHooks {
  /** A NOTIFY on `agent_events`, and every (re)connect after `onFirstConnect`: load what is new. */
  wake(): void;
  /** The first connection is listening: read the start position (a row committed in between is history or notified). */
  onFirstConnect(): Promise<void>;
  /** The position to log on a reconnect. */
  position(): bigint;
}

/**
 * The hub's LISTEN wake-up over runtime's reconnecting listener: the first time, LISTEN first and then read the
 * position; on each reconnect (notifications sent while it was down are lost) and on each NOTIFY, wake the hub.
 */
export function listenForEvents(deps: ListenForEventsDeps, hooks: ListenForEventsHooks): PgListener {
  return createPgListener({
    name: "feed-hub",
    channels: [EVENTS_CHANNEL],
    client: deps.listenClient,
    onNotification: (channel) => {
      if (channel === EVENTS_CHANNEL) hooks.wake();
    },
    onConnect: async ({ first }) => {
      if (first) await hooks.onFirstConnect();
      else deps.log.info({ lastSeenId: hooks.position().toString() }, "feed hub listening again; catching up");
      hooks.wake();
    },
    log: deps.log,
    backoff: { baseMs: deps.reconnectMinMs, maxMs: deps.reconnectMaxMs },
  });
}
