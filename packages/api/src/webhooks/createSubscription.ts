import { randomUUID } from "node:crypto";
import { generateToken, hashToken, sealSecret, VERIFY_TOKEN_TTL_MS } from "@agent-ledger/core";
import { inTransaction } from "@agent-ledger/db";
import { checkCallbackHost } from "./checkCallbackHost.ts";
import { subscriptionJson, SUB_COLUMNS, type SubscriptionRow } from "./subscriptionJson.ts";
import { validateCreateInput } from "./validateCreateInput.ts";
import { DELIVERIES_CHANNEL, MAX_SUBSCRIPTIONS_PER_USER } from "./webhookConstants.ts";
import type { WebhookContext } from "./webhookContext.ts";
import { WebhookError } from "./WebhookError.ts";

/**
 * POST /api/webhooks: validate, SSRF-check the host (production), then in one transaction (serialized per owner so
 * the limit holds) insert the subscription with its sealed secrets and the verification ping the worker sends.
 * The signing secret and verify token are shown this once.
 */
export async function createSubscription(ctx: WebhookContext, owner: string, body: Record<string, unknown>) {
  const input = validateCreateInput(body, { production: ctx.production });
  const masterKey = ctx.masterKey();
  if (ctx.production) await checkCallbackHost(input.callbackUrl, ctx.lookup);
  const id = generateToken("whs_", 12);
  const signingSecret = generateToken("whsec_");
  const verifyToken = generateToken("whvt_", 24);
  const created = ctx.now();
  const row = await inTransaction(ctx.db, async (c) => {
    // Serialize creates per owner so the limit holds under concurrency.
    await c.query("SELECT pg_advisory_xact_lock(hashtextextended('webhooks:' || $1, 0))", [owner]);
    const agent = await c.query("SELECT 1 FROM entities WHERE id = $1 AND active", [input.filters.agentId]);
    if (agent.rowCount === 0) throw new WebhookError("unknown_agent", `filters.agent_id "${input.filters.agentId}" is not an active watched agent or service`);
    const count = await c.query("SELECT count(*)::int AS n FROM webhook_subscriptions WHERE owner_user_id = $1 AND status <> 'deleted'", [owner]);
    if (count.rows[0].n >= MAX_SUBSCRIPTIONS_PER_USER)
      throw new WebhookError("limit_reached", `at most ${MAX_SUBSCRIPTIONS_PER_USER} webhooks per user (delete one first)`);
    const { rows } = await c.query(
      `INSERT INTO webhook_subscriptions (id, owner_user_id, status, callback_url, label, filter_agent_id, filter_recipient_address,
         filter_routed_to_address, filter_min_amount_wei, filter_token_address, signing_secret_ciphertext, verify_token_hash,
         verify_token_ciphertext, verify_token_expires_at, created_at, updated_at)
       VALUES ($1, $2, 'pending_verify', $3, $4, $5, $6, $7, $8::numeric, $9, $10, $11, $12, $13, $14, $14)
       RETURNING ${SUB_COLUMNS}`,
      [
        id,
        owner,
        input.callbackUrl.toString(),
        input.label,
        input.filters.agentId,
        input.filters.recipientAddress,
        input.filters.routedToAddress,
        input.filters.minAmountWei?.toString() ?? null,
        input.filters.tokenAddress,
        sealSecret(signingSecret, masterKey, id),
        hashToken(verifyToken),
        sealSecret(verifyToken, masterKey, id),
        new Date(created.getTime() + VERIFY_TOKEN_TTL_MS),
        created,
      ],
    );
    // The verification ping: a delivery row the worker sends right after this commits (and retries).
    const ping = await c.query(
      "INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, next_attempt_at) VALUES ($1, $2, NULL, 'verify', 'pending', $3) RETURNING id",
      [randomUUID(), id, created],
    );
    await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, ping.rows[0].id]);
    return rows[0] as SubscriptionRow;
  });
  const json = subscriptionJson(row);
  return {
    ok: true as const,
    id: json.id,
    status: json.status,
    callback_url: json.callback_url,
    filters: json.filters,
    label: json.label,
    signing_secret: signingSecret,
    verify_token: verifyToken,
    verify_token_expires_at: json.verify_token_expires_at,
    created_at: json.created_at,
  };
}
