import type { Queue } from "bullmq";
import { MAINTENANCE_SCHEDULER_ID } from "../constants.ts";

/**
 * Makes sure the repeatable "re-enqueue due deliveries" job exists. BullMQ creates one job per period
 * whatever the number of workers (a natural leader election); but a Redis that lost its data lost the
 * scheduler too, so every worker calls this on start and then periodically: creating it only when
 * missing keeps the period steady. Returns true when it had to (re)create it.
 */
export async function ensureMaintenanceScheduler(queue: Queue, everyMs: number): Promise<boolean> {
  const existing = await queue.getJobScheduler(MAINTENANCE_SCHEDULER_ID);
  if (existing && existing.every === everyMs) return false;
  await queue.upsertJobScheduler(
    MAINTENANCE_SCHEDULER_ID,
    { every: everyMs },
    {
      name: "requeue-due",
      data: {},
      opts: { removeOnComplete: true, removeOnFail: 100 },
    },
  );
  return true;
}
