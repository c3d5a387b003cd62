import { classifyOutcome, planAfterAttempt, type AttemptPlan, type AttemptResult, type SubscriptionState } from "@agent-ledger/core";
import type pg from "pg";

export interface AttemptReport {
  deliveryId: string;
  /** Verification pings and test events never change the subscription (no failure counting, no pause). */
  type: "event" | "verify" | "test";
  subscriptionId: string;
  attempt: number;
  result: AttemptResult;
  httpStatus: number | null;
  error: string | null;
  responseMs: number;
  retryAfterMs: number | null;
  now: Date;
  random: number;
  /** What this attempt sent (body and headers, never the secret): kept as the delivery's last request for the delivery log. */
  request: { body: string; headers: Record<string, string> } | null;
}

export interface RecordResult {
  /** False when the attempt had already been recorded or overtaken (nothing written). */
  recorded: boolean;
  plan: AttemptPlan;
  /** The subscription's status changed (paused by a 410, disabled after 5 failures). */
  subscriptionChanged: boolean;
}

// 2xx, the hot path: one statement for a whole batch of successes, no explicit transaction. Each
// delivery update is guarded by its claimed attempt number; a subscription is only written when it has
// failures to reset.
const RECORD_SUCCESSES = `
WITH r AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::timestamptz[], $6::text[], $7::jsonb[]) AS r(id, attempt, http, ms, at, body, headers)),
d AS (
  UPDATE webhook_deliveries w
     SET status = 'succeeded', last_http_status = r.http, last_error = NULL, last_response_ms = r.ms, next_attempt_at = NULL,
         completed_at = r.at, last_request_body = r.body, last_request_headers = r.headers, updated_at = now()
    FROM r
   WHERE w.id = r.id AND w.attempts = r.attempt AND w.status IN ('pending', 'retrying')
  RETURNING w.id, w.subscription_id, w.type
), s AS (
  UPDATE webhook_subscriptions SET consecutive_failures = 0, updated_at = now()
   WHERE id IN (SELECT subscription_id FROM d WHERE d.type = 'event') AND consecutive_failures <> 0 AND status <> 'deleted'
  RETURNING id
)
SELECT id::text AS id FROM d`;

/** Records a batch of 2xx attempts; returns, per report, whether it was recorded (false: overtaken). */
export async function recordSuccesses(db: pg.Pool | pg.ClientBase, reports: readonly AttemptReport[]): Promise<boolean[]> {
  // Not a named statement, for the same reason as the claim (a cached generic plan can outlive the table size it was made for).
  const { rows } = await db.query<{ id: string }>(RECORD_SUCCESSES, [
    reports.map((r) => r.deliveryId),
    reports.map((r) => r.attempt),
    reports.map((r) => r.httpStatus),
    reports.map((r) => r.responseMs),
    reports.map((r) => r.now),
    reports.map((r) => r.request?.body ?? null),
    reports.map((r) => (r.request ? JSON.stringify(r.request.headers) : null)),
  ]);
  const recorded = new Set(rows.map((r) => r.id));
  return reports.map((r) => recorded.has(r.deliveryId));
}

const STATUS_REASON: Record<string, string> = {
  paused: "receiver answered 410 Gone",
  disabled_by_failures: "disabled after 5 consecutive failed deliveries",
};

/**
 * Records one attempt with core planAfterAttempt (2xx: see recordSuccesses), in one transaction: the delivery's new status, and the
 * subscription's consecutive_failures/status (row-locked, so concurrent attempts count exactly).
 * Guarded by `attempts = <this attempt>` and an open status, so a duplicate or overtaken job writes nothing.
 */
export async function recordAttempt(pool: pg.Pool, report: AttemptReport): Promise<RecordResult> {
  const values = (plan: AttemptPlan) => [
    report.deliveryId,
    report.attempt,
    plan.delivery.status,
    report.httpStatus,
    report.error,
    report.responseMs,
    plan.delivery.nextAttemptAt,
    plan.delivery.status === "succeeded" || plan.delivery.status === "dead" ? report.now : null,
    report.request?.body ?? null,
    report.request ? JSON.stringify(report.request.headers) : null,
  ];
  if (classifyOutcome(report.result) === "success") {
    const plan = planAfterAttempt({
      attempt: report.attempt,
      result: report.result,
      subscription: { status: "active", consecutiveFailures: 0 },
      now: report.now,
      random: report.random,
    });
    const [recorded] = await recordSuccesses(pool, [report]);
    return { recorded: recorded!, plan, subscriptionChanged: false };
  }

  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const sub = await client.query<{ status: SubscriptionState["status"]; consecutive_failures: number }>(
      "SELECT status, consecutive_failures FROM webhook_subscriptions WHERE id = $1 FOR UPDATE",
      [report.subscriptionId],
    );
    const before: SubscriptionState = { status: sub.rows[0]?.status ?? "deleted", consecutiveFailures: sub.rows[0]?.consecutive_failures ?? 0 };
    // A verification ping or a test event is planned against an active stand-in: its own retries follow the
    // schedule, and the subscription row is left alone below.
    const plan = planAfterAttempt({
      attempt: report.attempt,
      result: report.result,
      retryAfterMs: report.retryAfterMs,
      subscription: report.type !== "event" && before.status !== "deleted" ? { status: "active", consecutiveFailures: 0 } : before,
      now: report.now,
      random: report.random,
    });
    const updated = await client.query(
      `UPDATE webhook_deliveries
          SET status = $3, last_http_status = $4, last_error = $5, last_response_ms = $6, next_attempt_at = $7, completed_at = $8,
              last_request_body = $9, last_request_headers = $10::jsonb, updated_at = now()
        WHERE id = $1 AND attempts = $2 AND status IN ('pending', 'retrying')`,
      values(plan),
    );
    const recorded = updated.rowCount === 1;
    let subscriptionChanged = false;
    if (
      recorded &&
      report.type === "event" &&
      (plan.subscription.status !== before.status || plan.subscription.consecutiveFailures !== before.consecutiveFailures)
    ) {
      subscriptionChanged = plan.subscription.status !== before.status;
      await client.query(
        `UPDATE webhook_subscriptions SET status = $2, consecutive_failures = $3, status_reason = CASE WHEN $4::text IS NULL THEN status_reason ELSE $4 END,
                updated_at = now() WHERE id = $1`,
        [
          report.subscriptionId,
          plan.subscription.status,
          plan.subscription.consecutiveFailures,
          subscriptionChanged ? (STATUS_REASON[plan.subscription.status] ?? null) : null,
        ],
      );
    }
    await client.query("COMMIT");
    return { recorded, plan, subscriptionChanged };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
