import type pg from "pg";
import { EVENT_ROW_COLUMNS, type EventRowDb } from "./eventRowJson.ts";

export interface ClaimedDelivery {
  id: string;
  /** event: a ledger row; verify: the verification ping; test: a test event asked for by the owner. */
  type: "event" | "verify" | "test";
  attempt: number;
  subscriptionId: string;
  callbackUrl: string;
  signingSecretCiphertext: string;
  verifyTokenCiphertext: string | null;
  /** The event row for type "event"; null when the row no longer exists. */
  event: EventRowDb | null;
}

export type ClaimResult =
  | { claimed: true; delivery: ClaimedDelivery }
  /**
   * Not claimed. `stale`: the job's attempt was already made, or the delivery is finished (a duplicate or
   * late job) — nothing to do. `held`: an event (or test) delivery whose subscription is not active (paused,
   * disabled, pending) — left as it is; it becomes due again on resume. `closed`: the delivery can never
   * be sent (subscription deleted, verify token expired) — marked dead.
   */
  | { claimed: false; reason: "missing" | "stale" | "held" | "closed"; detail?: string };

export const CLAIM_SQL = `
WITH req AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS r(id, prev)),
c AS (
  UPDATE webhook_deliveries d
     SET attempts = d.attempts + 1, last_attempt_at = $3, next_attempt_at = $4, updated_at = now()
    FROM req, webhook_subscriptions s
   WHERE d.id = req.id AND d.attempts = req.prev AND d.status IN ('pending', 'retrying')
     AND s.id = d.subscription_id
     AND CASE WHEN d.type = 'verify'
              THEN s.status <> 'deleted' AND NOT (s.status = 'pending_verify' AND s.verify_token_expires_at <= $3)
              ELSE s.status = 'active' END
  RETURNING d.id, d.type, d.event_id, d.attempts, d.subscription_id, s.callback_url, s.signing_secret_ciphertext, s.verify_token_ciphertext
)
SELECT c.id::text AS delivery_id, c.type AS delivery_type, c.attempts, c.subscription_id, c.callback_url, c.signing_secret_ciphertext,
       c.verify_token_ciphertext, (e.id IS NOT NULL) AS has_event, ${EVENT_ROW_COLUMNS}
  FROM c LEFT JOIN agent_events e ON e.id = c.event_id`;

export interface ClaimRequest {
  deliveryId: string;
  attempt: number;
}

/**
 * Claims attempt `attempt` of each delivery before any byte is sent: `attempts` goes from attempt-1 to
 * attempt only if nobody else did it and the delivery is still open, so two workers (or a duplicate
 * job) can never both send the same attempt. `next_attempt_at` becomes a lease (now + lease): if this
 * worker dies mid-POST the delivery becomes due when the lease ends and the minute job sends the next
 * attempt — a crash can cost one attempt, never the delivery. One statement for the whole batch
 * (concurrent jobs share it); results in input order.
 */
export async function claimDeliveries(
  db: pg.Pool | pg.ClientBase,
  requests: readonly ClaimRequest[],
  times: { now: Date; leaseUntil: Date },
): Promise<ClaimResult[]> {
  // Deliberately not a named (cached) statement: a generic plan made while the table was small (a seq
  // scan + hash join) would be kept for the connection's life; re-planning per batch costs far less.
  const { rows } = await db.query(CLAIM_SQL, [requests.map((r) => r.deliveryId), requests.map((r) => r.attempt - 1), times.now, times.leaseUntil]);
  const byId = new Map<string, ClaimedDelivery>();
  for (const r of rows) {
    byId.set(r.delivery_id, {
      id: r.delivery_id,
      type: r.delivery_type,
      attempt: r.attempts,
      subscriptionId: r.subscription_id,
      callbackUrl: r.callback_url,
      signingSecretCiphertext: r.signing_secret_ciphertext,
      verifyTokenCiphertext: r.verify_token_ciphertext,
      event: r.has_event ? (r as EventRowDb) : null,
    });
  }
  return Promise.all(
    requests.map(async (req) => {
      const delivery = byId.get(req.deliveryId);
      if (delivery && delivery.attempt === req.attempt) return { claimed: true as const, delivery };
      return explainUnclaimed(db, req, times.now);
    }),
  );
}

/** Why a delivery was not claimed (the rare path); closes it as dead when it can never be sent. */
async function explainUnclaimed(db: pg.Pool | pg.ClientBase, input: ClaimRequest, now: Date): Promise<ClaimResult> {
  const why = await db.query(
    `SELECT d.status, d.attempts, d.type, s.status AS sub_status, s.verify_token_expires_at
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = $1`,
    [input.deliveryId],
  );
  const d = why.rows[0];
  if (!d) return { claimed: false, reason: "missing" };
  if (d.attempts !== input.attempt - 1 || (d.status !== "pending" && d.status !== "retrying")) return { claimed: false, reason: "stale" };
  let detail: string | null = null;
  if (d.sub_status === "deleted") detail = "subscription deleted";
  else if (d.type === "verify" && d.sub_status === "pending_verify" && (d.verify_token_expires_at as Date) <= now) detail = "verify token expired";
  if (detail === null) return { claimed: false, reason: d.type === "verify" ? "stale" : "held", detail: `subscription ${d.sub_status}` };
  await db.query(
    `UPDATE webhook_deliveries SET status = 'dead', last_error = $3, next_attempt_at = NULL, completed_at = $4, updated_at = now()
      WHERE id = $1 AND attempts = $2 AND status IN ('pending', 'retrying')`,
    [input.deliveryId, input.attempt - 1, detail, now],
  );
  return { claimed: false, reason: "closed", detail };
}
