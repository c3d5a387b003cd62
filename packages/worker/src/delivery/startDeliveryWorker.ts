import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { DELIVERY_QUEUE } from "../constants.ts";
import { parseDeliveryJob, type DeliveryJobData } from "../queue/deliveryJob.ts";
import type { createDeliveryProcessor } from "./createDeliveryProcessor.ts";

/** The BullMQ worker running delivery jobs, `concurrency` at once; a job whose data is not a delivery is dropped. */
export function startDeliveryWorker(
  deps: { connection: Redis; log: Logger; processDelivery: ReturnType<typeof createDeliveryProcessor> },
  options: { prefix: string; concurrency: number; timeoutMs: number },
): Worker<DeliveryJobData> {
  const { log, processDelivery } = deps;
  const worker = new Worker<DeliveryJobData>(
    DELIVERY_QUEUE,
    async (job) => {
      const data = parseDeliveryJob(job.data);
      if (!data) return { sent: false, reason: "invalid_job" };
      return processDelivery(data);
    },
    {
      connection: deps.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: Math.max(30_000, options.timeoutMs * 2),
      maxStalledCount: 1,
    },
  );
  worker.on("error", (error) => log.warn({ err: error }, "delivery worker error"));
  worker.on("failed", (job, error) => log.warn({ err: error, jobId: job?.id }, "delivery job failed"));
  return worker;
}
