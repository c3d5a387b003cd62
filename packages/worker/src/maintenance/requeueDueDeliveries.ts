import type { Queue } from "bullmq";
import type pg from "pg";
import type { DeliveryJobData } from "../queue/deliveryJob.ts";
import { enqueueDeliveries } from "../queue/enqueueDeliveries.ts";

export interface RequeueResult {
  /** Due deliveries found (and re-added: a no-op for those whose job still exists). */
  due: number;
  /** Open deliveries of deleted subscriptions marked dead. */
  closed: number;
}

const PAGE = 2_000;

interface DueRow {
  id: string;
  attempts: number;
  next_attempt_at: Date;
}

/**
 * The minute job: every delivery that is due (`pending`/`retrying`, `next_attempt_at <= now`) and
 * sendable (an active subscription, or a verification ping of a not-deleted one) gets its next-attempt
 * job added again. Job ids are `<deliveryId>.<attempt>`, so this is harmless for deliveries whose job is
 * still in Redis and restores those that are not (Redis flushed, enqueue failed, worker killed mid-POST
 * and its claim lease ran out). Deliveries of paused/disabled subscriptions are left alone (held until
 * resume); those of deleted ones are closed as dead.
 */
export async function requeueDueDeliveries(pool: pg.Pool, queue: Queue<DeliveryJobData>, options: { now: Date }): Promise<RequeueResult> {
  const closed = await pool.query(
    `UPDATE webhook_deliveries d SET status = 'dead', last_error = 'subscription deleted', next_attempt_at = NULL, completed_at = $1, updated_at = now()
       FROM webhook_subscriptions s
      WHERE s.id = d.subscription_id AND s.status = 'deleted' AND d.status IN ('pending', 'retrying')`,
    [options.now],
  );
  let due = 0;
  let afterAt: Date | null = null;
  let afterId: string | null = null;
  for (;;) {
    const page: pg.QueryResult<DueRow> = await pool.query<DueRow>(
      `SELECT d.id::text AS id, d.attempts, d.next_attempt_at
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= $1
          AND (s.status = 'active' OR (d.type = 'verify' AND s.status <> 'deleted'))
          AND ($2::timestamptz IS NULL OR (d.next_attempt_at, d.id) > ($2::timestamptz, $3::uuid))
        ORDER BY d.next_attempt_at, d.id LIMIT $4`,
      [options.now, afterAt, afterId, PAGE],
    );
    const rows: DueRow[] = page.rows;
    if (rows.length === 0) break;
    due += await enqueueDeliveries(
      queue,
      rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1 })),
      { promoteDelayed: true },
    );
    if (rows.length < PAGE) break;
    const last: DueRow = rows.at(-1)!;
    afterAt = last.next_attempt_at;
    afterId = last.id;
  }
  return { due, closed: closed.rowCount ?? 0 };
}
