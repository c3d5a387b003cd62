import type { Queue } from "bullmq";
import type pg from "pg";
import type { Logger } from "pino";
import { createPgListener } from "@agent-ledger/runtime";
import { DELIVERIES_CHANNEL, EVENTS_CHANNEL } from "../constants.ts";
import { enqueueNotifiedDeliveries } from "../delivery/enqueueNotifiedDeliveries.ts";
import type { WorkerMetrics } from "../ops/createWorkerMetrics.ts";
import type { DeliveryJobData } from "../queue/deliveryJob.ts";
import type { Dispatcher } from "./createDispatcher.ts";

export interface NotificationRelay {
  /** Stops the pending batch timer (first thing on shutdown). */
  cancelFlush(): void;
  /** Closes the LISTEN connection. */
  close(): Promise<void>;
  /** The batch being enqueued, if any (awaited on shutdown). */
  flushing(): Promise<unknown>;
}

/**
 * NOTIFY listener: agent_events wakes the dispatcher (also on every (re)connect); webhook_deliveries names deliveries
 * to enqueue now (verification pings, redeliveries, resumes from the API), batched over 5 ms. An enqueue that fails is
 * left to the minute job. Resolves once LISTEN is in place.
 */
export async function startNotificationRelay(
  deps: {
    databaseUrl: string;
    pool: pg.Pool;
    queue: Queue<DeliveryJobData>;
    dispatcher: Dispatcher | null;
    log: Logger;
    metrics: WorkerMetrics;
    now: () => Date;
  },
  options: { delayScale: number },
): Promise<NotificationRelay> {
  const { dispatcher, log, metrics } = deps;
  const notified = new Set<string>();
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<unknown> = Promise.resolve();
  const flushNotified = () => {
    flushTimer = null;
    const ids = [...notified];
    notified.clear();
    flushing = enqueueNotifiedDeliveries(deps.pool, deps.queue, ids, { now: deps.now(), delayScale: options.delayScale }).catch((error: unknown) => {
      metrics.enqueueFailures.inc();
      log.warn({ err: error, deliveries: ids.length }, "could not enqueue notified deliveries; the minute job will");
    });
  };
  const listener = createPgListener({
    name: "worker",
    databaseUrl: deps.databaseUrl,
    applicationName: "agent-ledger-worker-listen",
    channels: dispatcher ? [EVENTS_CHANNEL, DELIVERIES_CHANNEL] : [DELIVERIES_CHANNEL],
    log,
    onConnect: () => dispatcher?.wake(),
    onNotification: (channel, payload) => {
      if (channel === EVENTS_CHANNEL) dispatcher?.wake();
      else if (channel === DELIVERIES_CHANNEL) {
        notified.add(payload);
        flushTimer ??= setTimeout(flushNotified, 5);
      }
    },
  });
  await listener.ready;
  return {
    cancelFlush: () => {
      if (flushTimer) clearTimeout(flushTimer);
    },
    close: () => listener.close(),
    flushing: () => flushing,
  };
}
