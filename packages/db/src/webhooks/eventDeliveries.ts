import { evaluateFilter, type FilterableEvent, type WebhookFilter } from "@agent-ledger/core";
import type pg from "pg";

// The one place that turns stored subscriptions and ledger rows into event deliveries. The worker's
// dispatcher (new rows past its cursor) and the API's recovery (rows since a time) both go through
// matchEventDeliveries → core evaluateFilter and insertEventDeliveries, so the filter rule and the
// "at most one delivery per (subscription, event)" rule exist once.

/** SELECT list of `webhook_subscriptions` giving a SubscriptionFilterRow. */
export const SUBSCRIPTION_FILTER_COLUMNS = `id, filter_agent_id, filter_recipient_address, filter_routed_to_address,
  filter_min_amount_wei::text AS filter_min_amount_wei, filter_token_address`;

export interface SubscriptionFilterRow {
  id: string;
  filter_agent_id: string;
  filter_recipient_address: string | null;
  filter_routed_to_address: string | null;
  filter_min_amount_wei: string | null;
  filter_token_address: string | null;
}

/** SELECT list of `agent_events e` giving an EventFilterRow. */
export const EVENT_FILTER_COLUMNS = `e.id::text AS id, e.agent_id, e.counterparty_address, e.routed_to_address, e.amount_wei::text AS amount_wei, e.token_address`;

export interface EventFilterRow {
  id: string;
  agent_id: string;
  counterparty_address: string;
  routed_to_address: string;
  amount_wei: string;
  token_address: string;
}

function filterOf(s: SubscriptionFilterRow): WebhookFilter {
  return {
    agentId: s.filter_agent_id,
    recipientAddress: s.filter_recipient_address,
    routedToAddress: s.filter_routed_to_address,
    minAmountWei: s.filter_min_amount_wei === null ? null : BigInt(s.filter_min_amount_wei),
    tokenAddress: s.filter_token_address,
  };
}

function eventOf(e: EventFilterRow): FilterableEvent {
  return {
    agentId: e.agent_id,
    counterpartyAddress: e.counterparty_address,
    routedToAddress: e.routed_to_address,
    amountWei: BigInt(e.amount_wei),
    tokenAddress: e.token_address,
  };
}

export interface DeliveryPairs {
  subscriptionIds: string[];
  eventIds: string[];
}

/**
 * Every (subscription, event) pair whose filter matches (core evaluateFilter; amounts as bigint), in
 * (event order, subscription id) order so that concurrent producers lock unique keys in the same order.
 * The caller decides which subscriptions are eligible (the dispatcher: active ones; recovery: the one asked for).
 */
export function matchEventDeliveries(events: readonly EventFilterRow[], subscriptions: readonly SubscriptionFilterRow[]): DeliveryPairs {
  const byAgent = new Map<string, { id: string; filter: WebhookFilter }[]>();
  for (const s of [...subscriptions].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const list = byAgent.get(s.filter_agent_id) ?? [];
    list.push({ id: s.id, filter: filterOf(s) });
    byAgent.set(s.filter_agent_id, list);
  }
  const pairs: DeliveryPairs = { subscriptionIds: [], eventIds: [] };
  for (const e of events) {
    const candidates = byAgent.get(e.agent_id);
    if (!candidates) continue;
    const event = eventOf(e);
    for (const s of candidates) {
      if (evaluateFilter(s.filter, event)) {
        pairs.subscriptionIds.push(s.id);
        pairs.eventIds.push(e.id);
      }
    }
  }
  return pairs;
}

const INSERT_EVENT_DELIVERIES = `
INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, attempts, next_attempt_at, created_at, updated_at)
SELECT gen_random_uuid(), u.s, u.e, 'event', 'pending', 0, $3, now(), now()
FROM unnest($1::text[], $2::bigint[]) AS u(s, e)
ON CONFLICT (subscription_id, event_id) DO NOTHING
RETURNING id, subscription_id, event_id::text AS event_id`;

export interface CreatedDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
}

/**
 * Inserts one pending event delivery per pair, due at `now`. A pair that already has a delivery is
 * skipped by the unique (subscription_id, event_id) key, so racing producers (two dispatchers, a
 * dispatcher and a recovery, a recovery run twice) never create a second one. Returns the rows created.
 */
export async function insertEventDeliveries(db: pg.Pool | pg.ClientBase, pairs: DeliveryPairs, now: Date): Promise<CreatedDelivery[]> {
  if (pairs.subscriptionIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; subscription_id: string; event_id: string }>(INSERT_EVENT_DELIVERIES, [
    pairs.subscriptionIds,
    pairs.eventIds,
    now,
  ]);
  return rows.map((r) => ({ id: r.id, subscriptionId: r.subscription_id, eventId: r.event_id }));
}
