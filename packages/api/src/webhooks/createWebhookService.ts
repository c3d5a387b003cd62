import { randomUUID } from "node:crypto";
import {
  CURRENT_METHODOLOGY_VERSION, generateToken, hashToken, parseRecoverSince, RecoverSinceError, sealSecret, transitionSubscription,
  SubscriptionTransitionError, VERIFY_TOKEN_TTL_MS, type SubscriptionStatus,
} from "@agent-ledger/core";
import type pg from "pg";
import { inTransaction as inTx, recoverDeliveries } from "@agent-ledger/db";
import { checkCallbackHost, type Lookup } from "./checkCallbackHost.ts";
import { validateCreateInput } from "./validateCreateInput.ts";
import { WebhookError } from "./WebhookError.ts";

/** Non-deleted subscriptions one user may hold (spec §8). */
export const MAX_SUBSCRIPTIONS_PER_USER = 25;
/** Channel the worker LISTENs on to enqueue a delivery right away (payload: delivery id). */
export const DELIVERIES_CHANNEL = "webhook_deliveries";

export interface WebhookServiceDeps {
  db: pg.Pool;
  /** Master key sealing signing secrets and verify tokens; null → webhook writes answer 503. */
  masterKey: Buffer | null;
  production: boolean;
  lookup?: Lookup;
  now?: () => Date;
  /** The methodology version whose rows are delivered (recovery reads only these; default the current one). */
  methodologyVersion?: string;
}

const SUB_COLUMNS = `id, status, callback_url, label, filter_agent_id, filter_recipient_address, filter_routed_to_address,
  filter_min_amount_wei::text AS filter_min_amount_wei, filter_token_address, verify_token_expires_at, consecutive_failures,
  status_reason, created_at, updated_at`;

export type SubscriptionRow = {
  id: string; status: SubscriptionStatus; callback_url: string; label: string; filter_agent_id: string;
  filter_recipient_address: string | null; filter_routed_to_address: string | null; filter_min_amount_wei: string | null;
  filter_token_address: string | null; verify_token_expires_at: Date; consecutive_failures: number; status_reason: string | null;
  created_at: Date; updated_at: Date;
};

/** The subscription as the API shows it (never a secret). */
export function subscriptionJson(row: SubscriptionRow) {
  const filters: Record<string, string> = { agent_id: row.filter_agent_id };
  if (row.filter_recipient_address) filters.recipient_address = row.filter_recipient_address;
  if (row.filter_routed_to_address) filters.routed_to_address = row.filter_routed_to_address;
  if (row.filter_min_amount_wei !== null) filters.min_amount_wei = row.filter_min_amount_wei;
  if (row.filter_token_address) filters.token_address = row.filter_token_address;
  return {
    id: row.id,
    status: row.status,
    callback_url: row.callback_url,
    filters,
    label: row.label,
    verify_token_expires_at: row.verify_token_expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    consecutive_failures: row.consecutive_failures,
    status_reason: row.status_reason,
  };
}

const DELIVERY_COLUMNS = `id, event_id::text AS event_id, type, status, attempts, last_http_status, last_error, last_response_ms,
  last_attempt_at, next_attempt_at, created_at, updated_at, completed_at, last_request_body, last_request_headers`;

function deliveryJson(r: Record<string, unknown>) {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
  return {
    id: r.id as string,
    event_id: r.event_id === null ? null : Number(r.event_id),
    type: r.type as string,
    status: r.status as string,
    attempts: r.attempts as number,
    last_http_status: (r.last_http_status as number | null) ?? null,
    last_error: (r.last_error as string | null) ?? null,
    last_response_ms: (r.last_response_ms as number | null) ?? null,
    last_attempt_at: iso(r.last_attempt_at),
    next_attempt_at: iso(r.next_attempt_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    completed_at: iso(r.completed_at),
    // What the last attempt sent, as the worker recorded it (docs/webhooks.md § Delivery log); null before the first attempt.
    last_request_body: (r.last_request_body as string | null) ?? null,
    last_request_headers: (r.last_request_headers as Record<string, string> | null) ?? null,
  };
}

/**
 * The cursor names the last row shown by (created_at, id), created_at to the microsecond as PostgreSQL keeps it (`at`,
 * the query's cursor_at): a millisecond ISO string (Date.toISOString) once skipped every row of the same millisecond
 * written later in it, e.g. all but the first of the deliveries one dispatch pass creates together.
 */
function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString("base64url");
}
function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    if (typeof createdAt !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) throw new Error("shape");
    return { createdAt, id };
  } catch {
    throw new WebhookError("invalid_cursor", "cursor is not one this API returned");
  }
}

function rethrowTransition(error: unknown): never {
  if (error instanceof SubscriptionTransitionError) {
    if (error.code === "not_found") throw new WebhookError("not_found", "no such webhook");
    throw new WebhookError(error.code as "invalid_verify_token" | "verify_token_expired" | "invalid_state", error.shortMessage);
  }
  throw error;
}

/**
 * Webhook subscriptions for one owner at a time: every query is scoped by `owner_user_id`, so
 * someone else's (or a deleted) subscription is indistinguishable from a missing one (404).
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const key = () => {
    if (!deps.masterKey) throw new WebhookError("not_configured", "webhooks are not configured on this server (SECRETS_MASTER_KEY is missing)");
    return deps.masterKey;
  };

  const inTransaction = <T>(fn: (c: pg.PoolClient) => Promise<T>) => inTx(deps.db, fn);

  /** The owner's live subscription row, locked for update; 404 when missing, deleted, or not theirs. */
  async function lockOwned(c: pg.PoolClient, owner: string, id: string): Promise<SubscriptionRow> {
    if (!/^whs_[A-Za-z0-9_-]{8,64}$/.test(id)) throw new WebhookError("not_found", "no such webhook");
    const { rows } = await c.query(`SELECT ${SUB_COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND owner_user_id = $2 AND status <> 'deleted' FOR UPDATE`, [id, owner]);
    if (!rows[0]) throw new WebhookError("not_found", "no such webhook");
    return rows[0];
  }

  async function setState(c: pg.PoolClient, id: string, status: SubscriptionStatus, consecutiveFailures: number, reason: string | null): Promise<SubscriptionRow> {
    const { rows } = await c.query(
      `UPDATE webhook_subscriptions SET status = $2, consecutive_failures = $3, status_reason = $4, updated_at = now(),
         deleted_at = CASE WHEN $2 = 'deleted' THEN now() ELSE deleted_at END
       WHERE id = $1 RETURNING ${SUB_COLUMNS}`,
      [id, status, consecutiveFailures, reason],
    );
    return rows[0];
  }

  return {
    async create(owner: string, body: unknown) {
      const input = validateCreateInput(body, { production: deps.production });
      const masterKey = key();
      if (deps.production) await checkCallbackHost(input.callbackUrl, deps.lookup);
      const id = generateToken("whs_", 12);
      const signingSecret = generateToken("whsec_");
      const verifyToken = generateToken("whvt_", 24);
      const created = now();
      const row = await inTransaction(async (c) => {
        // Serialize creates per owner so the limit holds under concurrency.
        await c.query("SELECT pg_advisory_xact_lock(hashtextextended('webhooks:' || $1, 0))", [owner]);
        const agent = await c.query("SELECT 1 FROM entities WHERE id = $1 AND active", [input.filters.agentId]);
        if (agent.rowCount === 0) throw new WebhookError("unknown_agent", `filters.agent_id "${input.filters.agentId}" is not an active watched agent or service`);
        const count = await c.query("SELECT count(*)::int AS n FROM webhook_subscriptions WHERE owner_user_id = $1 AND status <> 'deleted'", [owner]);
        if (count.rows[0].n >= MAX_SUBSCRIPTIONS_PER_USER) throw new WebhookError("limit_reached", `at most ${MAX_SUBSCRIPTIONS_PER_USER} webhooks per user (delete one first)`);
        const { rows } = await c.query(
          `INSERT INTO webhook_subscriptions (id, owner_user_id, status, callback_url, label, filter_agent_id, filter_recipient_address,
             filter_routed_to_address, filter_min_amount_wei, filter_token_address, signing_secret_ciphertext, verify_token_hash,
             verify_token_ciphertext, verify_token_expires_at, created_at, updated_at)
           VALUES ($1, $2, 'pending_verify', $3, $4, $5, $6, $7, $8::numeric, $9, $10, $11, $12, $13, $14, $14)
           RETURNING ${SUB_COLUMNS}`,
          [
            id, owner, input.callbackUrl.toString(), input.label, input.filters.agentId, input.filters.recipientAddress,
            input.filters.routedToAddress, input.filters.minAmountWei?.toString() ?? null, input.filters.tokenAddress,
            sealSecret(signingSecret, masterKey, id), hashToken(verifyToken), sealSecret(verifyToken, masterKey, id),
            new Date(created.getTime() + VERIFY_TOKEN_TTL_MS), created,
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
    },

    async list(owner: string) {
      const { rows } = await deps.db.query(
        `SELECT ${SUB_COLUMNS} FROM webhook_subscriptions WHERE owner_user_id = $1 AND status <> 'deleted' ORDER BY created_at DESC, id`,
        [owner],
      );
      return { items: rows.map(subscriptionJson) };
    },

    async get(owner: string, id: string) {
      if (!/^whs_[A-Za-z0-9_-]{8,64}$/.test(id)) throw new WebhookError("not_found", "no such webhook");
      const { rows } = await deps.db.query(`SELECT ${SUB_COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND owner_user_id = $2 AND status <> 'deleted'`, [id, owner]);
      if (!rows[0]) throw new WebhookError("not_found", "no such webhook");
      const counts = await deps.db.query("SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 GROUP BY status", [id]);
      const deliveries = { pending: 0, retrying: 0, succeeded: 0, dead: 0, total: 0 };
      for (const r of counts.rows) {
        deliveries[r.status as "pending"] = r.n;
        deliveries.total += r.n;
      }
      return { ...subscriptionJson(rows[0]), deliveries };
    },

    /**
     * POST /verify: the token proves possession (it was sent only to the callback), so this works for
     * the owner and also for a receiver calling without credentials; a caller authenticated as
     * someone else gets 404 like everywhere else.
     */
    async verify(owner: string | null, id: string, body: unknown) {
      const token = (body as { verify_token?: unknown } | null)?.verify_token;
      if (typeof token !== "string" || token.length === 0 || token.length > 200) throw new WebhookError("invalid_body", "verify_token (string) is required");
      return inTransaction(async (c) => {
        if (!/^whs_[A-Za-z0-9_-]{8,64}$/.test(id)) throw new WebhookError("not_found", "no such webhook");
        const { rows } = await c.query(
          `SELECT ${SUB_COLUMNS}, owner_user_id, verify_token_hash FROM webhook_subscriptions WHERE id = $1 AND status <> 'deleted' FOR UPDATE`,
          [id],
        );
        const row = rows[0];
        if (!row || (owner !== null && row.owner_user_id !== owner)) throw new WebhookError("not_found", "no such webhook");
        let next;
        try {
          next = transitionSubscription(
            { status: row.status, consecutiveFailures: row.consecutive_failures },
            { type: "verify", tokenMatches: hashToken(token) === row.verify_token_hash, now: now(), verifyTokenExpiresAt: row.verify_token_expires_at },
          );
        } catch (error) {
          rethrowTransition(error);
        }
        if (next.status !== row.status) {
          await c.query("UPDATE webhook_subscriptions SET status = 'active', verified_at = $2, consecutive_failures = 0, updated_at = now() WHERE id = $1", [id, now()]);
        }
        return { ok: true as const, status: "active" as const };
      });
    },

    async rotateSecret(owner: string, id: string) {
      const masterKey = key();
      const secret = generateToken("whsec_");
      await inTransaction(async (c) => {
        await lockOwned(c, owner, id);
        await c.query("UPDATE webhook_subscriptions SET signing_secret_ciphertext = $2, updated_at = now() WHERE id = $1", [id, sealSecret(secret, masterKey, id)]);
      });
      return { signing_secret: secret };
    },

    async pause(owner: string, id: string) {
      return inTransaction(async (c) => {
        const row = await lockOwned(c, owner, id);
        let next;
        try {
          next = transitionSubscription({ status: row.status, consecutiveFailures: row.consecutive_failures }, { type: "pause" });
        } catch (error) {
          rethrowTransition(error);
        }
        return { ok: true as const, ...subscriptionJson(await setState(c, id, next.status, next.consecutiveFailures, "paused by owner")) };
      });
    },

    async resume(owner: string, id: string) {
      return inTransaction(async (c) => {
        const row = await lockOwned(c, owner, id);
        let next;
        try {
          next = transitionSubscription({ status: row.status, consecutiveFailures: row.consecutive_failures }, { type: "resume" });
        } catch (error) {
          rethrowTransition(error);
        }
        const updated = await setState(c, id, next.status, next.consecutiveFailures, null);
        // Deliveries held while it was paused/disabled become due now (and are announced, not left to the minute job).
        const held = await c.query(
          "UPDATE webhook_deliveries SET next_attempt_at = LEAST(next_attempt_at, $2), updated_at = now() WHERE subscription_id = $1 AND status IN ('pending','retrying') RETURNING id",
          [id, now()],
        );
        for (const d of held.rows) await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, d.id]);
        return { ok: true as const, ...subscriptionJson(updated) };
      });
    },

    async remove(owner: string, id: string) {
      return inTransaction(async (c) => {
        const row = await lockOwned(c, owner, id);
        const next = transitionSubscription({ status: row.status, consecutiveFailures: row.consecutive_failures }, { type: "delete" });
        await setState(c, id, next.status, row.consecutive_failures, "deleted by owner");
        return { ok: true as const, id, status: "deleted" as const };
      });
    },

    async listDeliveries(owner: string, id: string, query: URLSearchParams) {
      const limitText = query.get("limit") ?? "50";
      if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 200) throw new WebhookError("invalid_limit", "limit must be an integer from 1 to 200");
      const limit = Number(limitText);
      const cursorText = query.get("cursor");
      const cursor = cursorText ? decodeCursor(cursorText) : null;
      await this.get(owner, id); // 404 unless it is the caller's
      const { rows } = await deps.db.query(
        `SELECT ${DELIVERY_COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM webhook_deliveries WHERE subscription_id = $1
           AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
         ORDER BY created_at DESC, id DESC LIMIT $4`,
        [id, cursor?.createdAt ?? null, cursor?.id ?? null, limit + 1],
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { items: page.map(deliveryJson), next_cursor: rows.length > limit && last ? encodeCursor(last.cursor_at, last.id) : null };
    },

    /**
     * One more attempt now, same delivery id. Refused (409 delivery_succeeded) once the delivery got a 2xx: a
     * repeated Svc-Delivery tells the receiver the earlier attempt was not 2xx (spec §6), so it would drop it.
     */
    async redeliver(owner: string, id: string, deliveryId: string) {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(deliveryId)) throw new WebhookError("not_found", "no such delivery");
      return inTransaction(async (c) => {
        await lockOwned(c, owner, id);
        const { rows } = await c.query(
          `UPDATE webhook_deliveries SET status = 'retrying', next_attempt_at = $3, completed_at = NULL, updated_at = now()
           WHERE id = $1 AND subscription_id = $2 AND status <> 'succeeded' RETURNING ${DELIVERY_COLUMNS}`,
          [deliveryId, id, now()],
        );
        if (!rows[0]) {
          const exists = await c.query("SELECT status FROM webhook_deliveries WHERE id = $1 AND subscription_id = $2", [deliveryId, id]);
          if (exists.rows[0]?.status === "succeeded") {
            throw new WebhookError("delivery_succeeded", "this delivery already got a 2xx; sending its Svc-Delivery id again would tell the receiver it had not (use recover or test instead)");
          }
          throw new WebhookError("not_found", "no such delivery");
        }
        await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, deliveryId]);
        return { ok: true as const, delivery: deliveryJson(rows[0]) };
      });
    },

    /**
     * POST /recover {since}: deliveries for every ledger row recorded since `since` (at most 7 days back, core
     * parseRecoverSince) that matches the subscription's filter and has no delivery yet — the events it missed
     * while paused or disabled. Active subscriptions only. Idempotent (unique (subscription, event)).
     */
    async recover(owner: string, id: string, body: unknown) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new WebhookError("invalid_body", 'body must be a JSON object {"since": "<ISO 8601>"}');
      const extra = Object.keys(body).filter((k) => k !== "since");
      if (extra.length > 0) throw new WebhookError("invalid_body", `unknown field: ${extra[0]!.slice(0, 40)}`);
      const at = now();
      let since: Date;
      try {
        since = parseRecoverSince((body as { since?: unknown }).since, at);
      } catch (error) {
        if (error instanceof RecoverSinceError) throw new WebhookError(error.code as "invalid_since" | "since_too_old", error.shortMessage);
        throw error;
      }
      await inTransaction(async (c) => {
        const row = await lockOwned(c, owner, id);
        if (row.status !== "active") throw new WebhookError("invalid_state", `cannot recover a ${row.status} subscription (resume it first)`);
      });
      // Page by page outside one long transaction (each page is idempotent on its own); the announced ids are
      // enqueued by the worker now, and any announcement lost is covered by its minute job (they are due).
      const result = await recoverDeliveries(deps.db, { subscriptionId: id, since, methodologyVersion: deps.methodologyVersion ?? CURRENT_METHODOLOGY_VERSION, now: at });
      for (let i = 0; i < result.created.length; i += 1_000) {
        await deps.db.query("SELECT pg_notify($1, d) FROM unnest($2::text[]) AS d", [DELIVERIES_CHANNEL, result.created.slice(i, i + 1_000).map((d) => d.id)]);
      }
      return { ok: true as const, id, since: since.toISOString(), matched_events: result.matched, deliveries_created: result.created.length };
    },

    /** POST /test: a signed `svc.webhook.test` delivery through the worker (same signing, headers, retries). Active only. */
    async test(owner: string, id: string) {
      return inTransaction(async (c) => {
        const row = await lockOwned(c, owner, id);
        if (row.status !== "active") throw new WebhookError("invalid_state", `cannot send a test event to a ${row.status} subscription`);
        const { rows } = await c.query(
          `INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, next_attempt_at) VALUES ($1, $2, NULL, 'test', 'pending', $3)
           RETURNING ${DELIVERY_COLUMNS}`,
          [randomUUID(), id, now()],
        );
        await c.query("SELECT pg_notify($1, $2)", [DELIVERIES_CHANNEL, rows[0].id]);
        return { ok: true as const, delivery_id: rows[0].id as string, delivery: deliveryJson(rows[0]) };
      });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
