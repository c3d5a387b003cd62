import type pg from "pg";
import {
  EVENT_FILTER_COLUMNS,
  insertEventDeliveries,
  matchEventDeliveries,
  SUBSCRIPTION_FILTER_COLUMNS,
  type CreatedDelivery,
  type EventFilterRow,
  type SubscriptionFilterRow,
} from "./eventDeliveries.ts";

export interface RecoverDeliveriesOptions {
  subscriptionId: string;
  /** Rows recorded in the ledger (agent_events.created_at) at or after this instant. */
  since: Date;
  /** Only rows of this methodology version (the one the dispatcher delivers). */
  methodologyVersion: string;
  /** `next_attempt_at` of the deliveries created. */
  now: Date;
  /** Rows read per statement (default 1,000). */
  pageSize?: number;
}

export interface RecoverDeliveriesResult {
  /** Rows of the subscription's agent in the window that its filter matched. */
  matched: number;
  /** Deliveries created (matched rows that had none yet). */
  created: CreatedDelivery[];
}

/**
 * Creates the deliveries a subscription missed: every ledger row recorded since `since` (up to the newest row
 * now) that matches the subscription's filter (matchEventDeliveries, the dispatcher's rule) and has no delivery
 * yet. Page by page, each page one INSERT … ON CONFLICT DO NOTHING on the unique (subscription_id, event_id):
 * running it twice, or while the dispatcher delivers the same rows, never makes a second delivery. Rows that
 * commit after it started are the dispatcher's. The caller checks ownership and state, and announces the ids.
 */
export async function recoverDeliveries(db: pg.Pool | pg.ClientBase, options: RecoverDeliveriesOptions): Promise<RecoverDeliveriesResult> {
  const pageSize = options.pageSize ?? 1_000;
  const sub = await db.query<SubscriptionFilterRow>(`SELECT ${SUBSCRIPTION_FILTER_COLUMNS} FROM webhook_subscriptions WHERE id = $1`, [options.subscriptionId]);
  const subscription = sub.rows[0];
  if (!subscription) return { matched: 0, created: [] };
  // The id range to read: created_at has a BRIN index (rows are appended in time order), so the first id
  // recorded since `since` is found without reading older history; the agent's rows are then read by (agent_id, id).
  // `OFFSET 0` keeps the planner from turning min(id) into a walk up the primary key from the oldest row, which
  // filters every older row first (it expects matches to be spread evenly; they are all at the end).
  const bounds = await db.query<{ lo: string | null; hi: string | null }>(
    `SELECT (SELECT min(id) FROM (SELECT id FROM agent_events WHERE created_at >= $1 OFFSET 0) recent)::text AS lo,
            (SELECT max(id) FROM agent_events)::text AS hi`,
    [options.since],
  );
  const { lo, hi } = bounds.rows[0]!;
  if (lo === null || hi === null) return { matched: 0, created: [] };
  let after = BigInt(lo) - 1n;
  const last = BigInt(hi);
  let matched = 0;
  const created: CreatedDelivery[] = [];
  while (after < last) {
    const page = await db.query<EventFilterRow>(
      // ORDER BY the bigint column (e.id), not the text alias.
      `SELECT ${EVENT_FILTER_COLUMNS} FROM agent_events e
        WHERE e.agent_id = $1 AND e.methodology_version = $2 AND e.id > $3 AND e.id <= $4 AND e.created_at >= $5
        ORDER BY e.id LIMIT $6`,
      [subscription.filter_agent_id, options.methodologyVersion, after.toString(), last.toString(), options.since, pageSize],
    );
    if (page.rows.length === 0) break;
    const pairs = matchEventDeliveries(page.rows, [subscription]);
    matched += pairs.eventIds.length;
    created.push(...(await insertEventDeliveries(db, pairs, options.now)));
    if (page.rows.length < pageSize) break;
    after = BigInt(page.rows.at(-1)!.id);
  }
  return { matched, created };
}
