import { CURRENT_METHODOLOGY_VERSION, parseRecoverSince, RecoverSinceError } from "@agent-ledger/core";
import { inTransaction, recoverDeliveries } from "@agent-ledger/db";
import { lockOwnedSubscription } from "./lockOwnedSubscription.ts";
import { DELIVERIES_CHANNEL } from "./webhookConstants.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/**
 * POST /recover {since}: deliveries for every ledger row recorded since `since` (at most 7 days back, core
 * parseRecoverSince) that matches the subscription's filter and has no delivery yet — the events it missed
 * while paused or disabled. Active subscriptions only. Idempotent (unique (subscription, event)). The body's shape is
 * the route's declared input (webhookInputs.ts); GraphQL passes `{ since }`.
 */
export async function recoverSubscription(ctx: WebhookContext, owner: string, id: string, body: { since?: unknown }) {
  const at = ctx.now();
  let since: Date;
  try {
    since = parseRecoverSince(body.since, at);
  } catch (error) {
    if (error instanceof RecoverSinceError) throw new WebhookError(error.code as "invalid_since" | "since_too_old", error.shortMessage);
    throw error;
  }
  await inTransaction(ctx.db, async (c) => {
    const row = await lockOwnedSubscription(c, owner, id);
    if (row.status !== "active") throw new WebhookError("invalid_state", `cannot recover a ${row.status} subscription (resume it first)`);
  });
  // Page by page outside one long transaction (each page is idempotent on its own); the announced ids are
  // enqueued by the worker now, and any announcement lost is covered by its minute job (they are due).
  const result = await recoverDeliveries(ctx.db, {
    subscriptionId: id,
    since,
    methodologyVersion: ctx.methodologyVersion ?? CURRENT_METHODOLOGY_VERSION,
    now: at,
  });
  for (let i = 0; i < result.created.length; i += 1_000) {
    await ctx.db.query("SELECT pg_notify($1, d) FROM unnest($2::text[]) AS d", [DELIVERIES_CHANNEL, result.created.slice(i, i + 1_000).map((d) => d.id)]);
  }
  return { ok: true as const, id, since: since.toISOString(), matched_events: result.matched, deliveries_created: result.created.length };
}
