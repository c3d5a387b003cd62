import type { Worker } from "bullmq";
import type { Logger } from "pino";

/** Stops fetching jobs; in-flight POSTs get `graceMs`, then are abandoned to their claim lease. */
export async function closeDeliveryWorker(worker: Worker, graceMs: number, log: Logger): Promise<void> {
  const closing = worker.close();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = await Promise.race([closing.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)))]);
  clearTimeout(timer);
  if (graceOver) {
    log.warn({ graceMs }, "in-flight deliveries did not finish within the grace period; abandoning them to their lease");
    await worker.close(true).catch(() => {});
  }
}
