import { Worker, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { MAINTENANCE_QUEUE } from "../constants.ts";
import type { WorkerMetrics } from "../ops/createWorkerMetrics.ts";
import { ensureMaintenanceScheduler } from "./ensureMaintenanceScheduler.ts";
import type { RequeueResult } from "./requeueDueDeliveries.ts";

export interface MaintenanceJob {
  /** Stops re-ensuring the scheduler (first thing on shutdown). */
  stopScheduler(): void;
  /** Closes the minute job's worker. */
  close(): Promise<void>;
}

/**
 * The minute job (one run per period across all workers: re-enqueue due deliveries) and its self-healing scheduler,
 * ensured now and then every period.
 */
export async function startMaintenanceJob(
  deps: { connection: Redis; queue: Queue; log: Logger; metrics: WorkerMetrics; requeueDue: () => Promise<RequeueResult> },
  options: { prefix: string; intervalMs: number },
): Promise<MaintenanceJob> {
  const { log, metrics, requeueDue } = deps;
  const worker = new Worker(
    MAINTENANCE_QUEUE,
    async () => {
      const r = await requeueDue();
      if (r.due > 0 || r.closed > 0) log.info(r, "minute job: re-enqueued due deliveries");
      metrics.requeued.inc(r.due);
      return r;
    },
    { connection: deps.connection, prefix: options.prefix, concurrency: 1 },
  );
  worker.on("error", (error) => log.warn({ err: error }, "maintenance worker error"));
  const ensureScheduler = () =>
    ensureMaintenanceScheduler(deps.queue, options.intervalMs).then(
      (created) => created && log.debug({ everyMs: options.intervalMs }, "minute job scheduled"),
      (error: unknown) => log.warn({ err: error }, "could not ensure the minute job's scheduler"),
    );
  await ensureScheduler();
  const schedulerTimer = setInterval(() => void ensureScheduler(), options.intervalMs);
  return {
    stopScheduler: () => clearInterval(schedulerTimer),
    close: () => worker.close(),
  };
}
