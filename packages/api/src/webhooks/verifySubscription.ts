import { hashToken } from "@agent-ledger/core";
import { inTransaction } from "@agent-ledger/db";
import { SUB_COLUMNS } from "./subscriptionJson.ts";
import { transitionOrThrow } from "./transitionOrThrow.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/**
 * POST /verify: the token proves possession (it was sent only to the callback), so this works for
 * the owner and also for a receiver calling without credentials; a caller authenticated as
 * someone else gets 404 like everywhere else. The token is the route's declared body (webhookInputs.ts).
 */
export async function verifySubscription(ctx: WebhookContext, owner: string | null, id: string, token: string) {
  return inTransaction(ctx.db, async (c) => {
    if (!/^whs_[A-Za-z0-9_-]{8,64}$/.test(id)) throw new WebhookError("not_found", "no such webhook");
    const { rows } = await c.query(
      `SELECT ${SUB_COLUMNS}, owner_user_id, verify_token_hash FROM webhook_subscriptions WHERE id = $1 AND status <> 'deleted' FOR UPDATE`,
      [id],
    );
    const row = rows[0];
    if (!row || (owner !== null && row.owner_user_id !== owner)) throw new WebhookError("not_found", "no such webhook");
    const next = transitionOrThrow(
      { status: row.status, consecutiveFailures: row.consecutive_failures },
      { type: "verify", tokenMatches: hashToken(token) === row.verify_token_hash, now: ctx.now(), verifyTokenExpiresAt: row.verify_token_expires_at },
    );
    if (next.status !== row.status) {
      await c.query("UPDATE webhook_subscriptions SET status = 'active', verified_at = $2, consecutive_failures = 0, updated_at = now() WHERE id = $1", [
        id,
        ctx.now(),
      ]);
    }
    return { ok: true as const, status: "active" as const };
  });
}
