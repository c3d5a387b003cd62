import {
  EVENT_FILTER_COLUMNS,
  insertEventDeliveries,
  matchEventDeliveries,
  SUBSCRIPTION_FILTER_COLUMNS,
  type CreatedDelivery,
  type EventFilterRow,
  type SubscriptionFilterRow,
} from "@agent-ledger/db";
import type pg from "pg";

export interface DispatchPageResult {
  /** False when another dispatcher held the cursor (it does the work; nothing happened here). */
  ran: boolean;
  /** Cursor before and after this page. */
  from: bigint;
  to: bigint;
  eventsRead: number;
  /** Deliveries this page created (conflicts with existing rows excluded): enqueue these. */
  created: CreatedDelivery[];
  /** True when the page was full: call again. */
  more: boolean;
}

/**
 * One dispatch step, in ONE transaction: lock the cursor row (SKIP LOCKED: if another dispatcher has it,
 * return `ran: false`), read the next page of live-version agent_events up to `watermark`, match them
 * against the ACTIVE subscriptions of the page's agents (@agent-ledger/db matchEventDeliveries → core evaluateFilter,
 * the same rule the API's recovery uses), insert one delivery per match (the unique (subscription_id, event_id) makes racing producers safe),
 * advance the cursor, commit. Enqueueing is the caller's job, after the commit.
 *
 * A subscription therefore receives exactly the events the cursor passes while it is active; a new
 * one starts with the rows past the cursor when it becomes active.
 */
export async function dispatchPage(
  client: pg.ClientBase,
  options: { cursorId: string; watermark: bigint; methodologyVersion: string; pageSize: number; now: Date },
): Promise<DispatchPageResult> {
  await client.query("BEGIN");
  try {
    const lockCursor = () =>
      client.query<{ last_event_id: string }>("SELECT last_event_id::text AS last_event_id FROM event_cursors WHERE id = $1 FOR UPDATE SKIP LOCKED", [
        options.cursorId,
      ]);
    let cursor = await lockCursor();
    if (cursor.rows.length === 0) {
      // Missing (first run ever: start at the watermark, "from now on", not at the beginning of history) or locked by another dispatcher.
      const created = await client.query("INSERT INTO event_cursors (id, last_event_id, updated_at) VALUES ($1, $2, now()) ON CONFLICT (id) DO NOTHING", [
        options.cursorId,
        options.watermark.toString(),
      ]);
      if (created.rowCount === 1) cursor = await lockCursor();
    }
    if (cursor.rows.length === 0) {
      await client.query("ROLLBACK");
      return { ran: false, from: 0n, to: 0n, eventsRead: 0, created: [], more: false };
    }
    const from = BigInt(cursor.rows[0]!.last_event_id);
    if (from >= options.watermark) {
      await client.query("COMMIT");
      return { ran: true, from, to: from, eventsRead: 0, created: [], more: false };
    }
    const events = await client.query<EventFilterRow>(
      // ORDER BY the bigint column (e.id), not the text alias `id`: text order would skip rows.
      `SELECT ${EVENT_FILTER_COLUMNS}
         FROM agent_events e WHERE e.id > $1 AND e.id <= $2 AND e.methodology_version = $3 ORDER BY e.id LIMIT $4`,
      [from.toString(), options.watermark.toString(), options.methodologyVersion, options.pageSize],
    );
    const full = events.rows.length === options.pageSize;
    const to = full ? BigInt(events.rows.at(-1)!.id) : options.watermark;

    let created: CreatedDelivery[] = [];
    if (events.rows.length > 0) {
      const agents = [...new Set(events.rows.map((e) => e.agent_id))];
      const subs = await client.query<SubscriptionFilterRow>(
        `SELECT ${SUBSCRIPTION_FILTER_COLUMNS} FROM webhook_subscriptions WHERE status = 'active' AND filter_agent_id = ANY($1::text[]) ORDER BY id`,
        [agents],
      );
      created = await insertEventDeliveries(client, matchEventDeliveries(events.rows, subs.rows), options.now);
    }
    await client.query("UPDATE event_cursors SET last_event_id = $2, updated_at = now() WHERE id = $1", [options.cursorId, to.toString()]);
    await client.query("COMMIT");
    return { ran: true, from, to, eventsRead: events.rows.length, created, more: full };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
