import { Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";

export const DELIVERY_QUEUE = "webhook-deliveries";

/**
 * Starts the delivery worker. The webhook engine fills in the processor; until then a job that
 * arrives is failed loudly instead of being dropped silently.
 */
export async function startWorker(options: { redisUrl: string; prefix: string; concurrency: number; log: Logger }) {
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
  await connection.connect();
  await connection.ping();
  const worker = new Worker(
    DELIVERY_QUEUE,
    async (job) => {
      throw new Error(`no processor for job ${job.name} yet`);
    },
    { connection, prefix: options.prefix, concurrency: options.concurrency },
  );
  await worker.waitUntilReady();
  options.log.info({ queue: DELIVERY_QUEUE, prefix: options.prefix, concurrency: options.concurrency }, "worker ready");
  return {
    worker,
    async stop(): Promise<void> {
      await worker.close();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}
