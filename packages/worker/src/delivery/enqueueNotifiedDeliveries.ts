import type { Queue } from "bullmq";
import type pg from "pg";
import { isDeliveryId, type DeliveryJobData } from "../queue/deliveryJob.ts";
import { enqueueDeliveries } from "../queue/enqueueDeliveries.ts";

/**
 * NOTIFY webhook_deliveries '<delivery id>' (the API after creating a verification ping, a redeliver,
 * or a resume): enqueue the next attempt of each named delivery that is still open, delayed until its
 * next_attempt_at. Unknown, finished or malformed ids are ignored. Returns the number enqueued.
 */
export async function enqueueNotifiedDeliveries(
  pool: pg.Pool,
  queue: Queue<DeliveryJobData>,
  ids: readonly string[],
  options: { now: Date; delayScale: number },
): Promise<number> {
  const valid = [...new Set(ids.map((i) => i.trim().toLowerCase()).filter(isDeliveryId))];
  if (valid.length === 0) return 0;
  const { rows } = await pool.query<{ id: string; attempts: number; next_attempt_at: Date | null }>(
    `SELECT id::text AS id, attempts, next_attempt_at FROM webhook_deliveries WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'retrying')`,
    [valid],
  );
  const scale = options.delayScale > 0 ? options.delayScale : 1;
  return enqueueDeliveries(
    queue,
    rows.map((r) => ({
      deliveryId: r.id,
      attempt: r.attempts + 1,
      delayMs: r.next_attempt_at ? Math.max(0, r.next_attempt_at.getTime() - options.now.getTime()) / scale : 0,
    })),
    { promoteDelayed: true },
  );
}
