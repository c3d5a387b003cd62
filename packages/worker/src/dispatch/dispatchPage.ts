import { evaluateFilter, type WebhookFilter } from "@agent-ledger/core";
import type pg from "pg";

export interface DispatchPageResult {
  /** False when another dispatcher held the cursor (it does the work; nothing happened here). */
  ran: boolean;
  /** Cursor before and after this page. */
  from: bigint;
  to: bigint;
  eventsRead: number;
  /** Deliveries this page created (conflicts with existing rows excluded): enqueue these. */
  created: { id: string; subscriptionId: string; eventId: string }[];
  /** True when the page was full: call again. */
  more: boolean;
}

interface EventRow { id: string; agent_id: string; counterparty_address: string; routed_to_address: string; amount_wei: string; token_address: string }
interface SubscriptionRow {
  id: string; filter_agent_id: string; filter_recipient_address: string | null; filter_routed_to_address: string | null;
  filter_min_amount_wei: string | null; filter_token_address: string | null;
}

const INSERT_DELIVERIES = `
INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, attempts, next_attempt_at, created_at, updated_at)
SELECT gen_random_uuid(), u.s, u.e, 'event', 'pending', 0, $3, now(), now()
FROM unnest($1::text[], $2::bigint[]) AS u(s, e)
ON CONFLICT (subscription_id, event_id) DO NOTHING
RETURNING id, subscription_id, event_id::text AS event_id`;

/**
 * One dispatch step, in ONE transaction: lock the cursor row (SKIP LOCKED: if another dispatcher has it,
 * return `ran: false`), read the next page of live-version agent_events up to `watermark`, match them
 * against the ACTIVE subscriptions of the page's agents (core evaluateFilter, amounts as bigint),
 * insert one delivery per match (the unique (subscription_id, event_id) makes racing producers safe),
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
    const lockCursor = () => client.query<{ last_event_id: string }>(
      "SELECT last_event_id::text AS last_event_id FROM event_cursors WHERE id = $1 FOR UPDATE SKIP LOCKED",
      [options.cursorId],
    );
    let cursor = await lockCursor();
    if (cursor.rows.length === 0) {
      // Missing (first run ever: start at the watermark, "from now on", not at the beginning of history) or locked by another dispatcher.
      const created = await client.query("INSERT INTO event_cursors (id, last_event_id, updated_at) VALUES ($1, $2, now()) ON CONFLICT (id) DO NOTHING", [
        options.cursorId, options.watermark.toString(),
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
    const events = await client.query<EventRow>(
      // ORDER BY the bigint column (e.id), not the text alias `id`: text order would skip rows.
      `SELECT e.id::text AS id, e.agent_id, e.counterparty_address, e.routed_to_address, e.amount_wei::text AS amount_wei, e.token_address
         FROM agent_events e WHERE e.id > $1 AND e.id <= $2 AND e.methodology_version = $3 ORDER BY e.id LIMIT $4`,
      [from.toString(), options.watermark.toString(), options.methodologyVersion, options.pageSize],
    );
    const full = events.rows.length === options.pageSize;
    const to = full ? BigInt(events.rows.at(-1)!.id) : options.watermark;

    const subsBySubject = new Map<string, { id: string; filter: WebhookFilter }[]>();
    if (events.rows.length > 0) {
      const agents = [...new Set(events.rows.map((e) => e.agent_id))];
      const subs = await client.query<SubscriptionRow>(
        `SELECT id, filter_agent_id, filter_recipient_address, filter_routed_to_address, filter_min_amount_wei::text AS filter_min_amount_wei,
                filter_token_address
           FROM webhook_subscriptions WHERE status = 'active' AND filter_agent_id = ANY($1::text[]) ORDER BY id`,
        [agents],
      );
      for (const s of subs.rows) {
        const list = subsBySubject.get(s.filter_agent_id) ?? [];
        list.push({
          id: s.id,
          filter: {
            agentId: s.filter_agent_id,
            recipientAddress: s.filter_recipient_address,
            routedToAddress: s.filter_routed_to_address,
            minAmountWei: s.filter_min_amount_wei === null ? null : BigInt(s.filter_min_amount_wei),
            tokenAddress: s.filter_token_address,
          },
        });
        subsBySubject.set(s.filter_agent_id, list);
      }
    }

    const subIds: string[] = [];
    const eventIds: string[] = [];
    for (const e of events.rows) {
      const candidates = subsBySubject.get(e.agent_id);
      if (!candidates) continue;
      const event = {
        agentId: e.agent_id, counterpartyAddress: e.counterparty_address, routedToAddress: e.routed_to_address,
        amountWei: BigInt(e.amount_wei), tokenAddress: e.token_address,
      };
      for (const s of candidates) {
        if (evaluateFilter(s.filter, event)) {
          subIds.push(s.id);
          eventIds.push(e.id);
        }
      }
    }
    // Rows go in (event id, subscription id) order, so concurrent producers lock keys in the same order.
    let created: DispatchPageResult["created"] = [];
    if (subIds.length > 0) {
      const inserted = await client.query<{ id: string; subscription_id: string; event_id: string }>(INSERT_DELIVERIES, [subIds, eventIds, options.now]);
      created = inserted.rows.map((r) => ({ id: r.id, subscriptionId: r.subscription_id, eventId: r.event_id }));
    }
    await client.query("UPDATE event_cursors SET last_event_id = $2, updated_at = now() WHERE id = $1", [options.cursorId, to.toString()]);
    await client.query("COMMIT");
    return { ran: true, from, to, eventsRead: events.rows.length, created, more: full };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
