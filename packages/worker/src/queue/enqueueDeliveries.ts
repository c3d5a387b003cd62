import type { Queue } from "bullmq";
import { deliveryJobId, type DeliveryJobData } from "./deliveryJob.ts";

export interface DeliveryToEnqueue {
  deliveryId: string;
  attempt: number;
  /** Real milliseconds to wait before the job may run (0 = now). */
  delayMs?: number;
}

/** Job options of every delivery job: removed when done so the (delivery, attempt) id can never block a later re-add. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: "exponential", delay: 1_000 } } as const;

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`enqueue timed out after ${ms} ms (Redis unavailable?)`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Adds one job per delivery attempt (idempotent: the job id is `<deliveryId>.<attempt>`, and adding an id
 * that exists is a no-op). With `promoteDelayed`, a due item whose job already waits in the delayed set
 * (e.g. a retry scheduled for later, then pulled forward by redeliver or resume) is promoted to run now.
 * Gives up after `timeoutMs` when Redis does not answer: the rows are in PostgreSQL and the minute job
 * re-enqueues whatever is due, so a failed enqueue delays a delivery but never loses it.
 */
export async function enqueueDeliveries(
  queue: Queue<DeliveryJobData>,
  items: readonly DeliveryToEnqueue[],
  options: { timeoutMs?: number; promoteDelayed?: boolean } = {},
): Promise<number> {
  if (items.length === 0) return 0;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let toAdd = items;
  if (options.promoteDelayed) {
    const due = items.filter((i) => !i.delayMs);
    const existing = await withTimeout(Promise.all(due.map((i) => queue.getJob(deliveryJobId(i.deliveryId, i.attempt)))), timeoutMs);
    const present = new Set<string>();
    await withTimeout(
      Promise.all(
        existing.map(async (job) => {
          if (!job?.id) return;
          present.add(job.id);
          if (await job.isDelayed()) await job.promote().catch(() => {}); // moved on meanwhile: fine
        }),
      ),
      timeoutMs,
    );
    toAdd = items.filter((i) => !present.has(deliveryJobId(i.deliveryId, i.attempt)));
  }
  const jobs = toAdd.map((i) => ({
    name: "deliver",
    data: { deliveryId: i.deliveryId, attempt: i.attempt },
    opts: { ...JOB_OPTIONS, jobId: deliveryJobId(i.deliveryId, i.attempt), delay: Math.max(0, Math.round(i.delayMs ?? 0)) },
  }));
  for (let i = 0; i < jobs.length; i += 1_000) await withTimeout(queue.addBulk(jobs.slice(i, i + 1_000)), timeoutMs);
  return items.length;
}
