import { coalesceRuns } from "@agent-ledger/core";
import type { Queue } from "bullmq";
import type pg from "pg";
import type { Logger } from "pino";
import type { WorkerMetrics } from "../ops/createWorkerMetrics.ts";
import type { DeliveryJobData } from "../queue/deliveryJob.ts";
import { enqueueDeliveries } from "../queue/enqueueDeliveries.ts";
import { dispatchPage } from "./dispatchPage.ts";
import { probeCursor, readWatermark } from "./readWatermark.ts";

export interface DispatcherDeps {
  pool: pg.Pool;
  queue: Queue<DeliveryJobData>;
  log: Logger;
  metrics?: WorkerMetrics;
  now: () => Date;
}

export interface DispatcherOptions {
  cursorId: string;
  methodologyVersion: string;
  pageSize: number;
  /** Fallback poll; NOTIFY agent_events calls wake() in between. 0 = no timer (tests drive it). */
  pollMs: number;
}

export interface PassResult {
  eventsRead: number;
  deliveriesCreated: number;
  enqueued: number;
  cursor: bigint | null;
}

/**
 * The dispatch loop: each pass moves the durable cursor over agent_events up to the watermark, page
 * by page, creating deliveries in the same transaction as the cursor move, then enqueues them. Woken
 * by NOTIFY agent_events (wake()) and by a poll timer. Enqueue failures are only logged: the rows are
 * committed and the minute job re-enqueues due deliveries, so Redis being down loses nothing.
 */
export function createDispatcher(deps: DispatcherDeps, options: DispatcherOptions) {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  async function pass(): Promise<PassResult> {
    const result: PassResult = { eventsRead: 0, deliveriesCreated: 0, enqueued: 0, cursor: null };
    const client = await deps.pool.connect();
    try {
      // Cheap probe first: an idle poll costs one round trip and no lock.
      const probe = await probeCursor(client, options.cursorId);
      if (probe.cursor !== null && probe.max <= probe.cursor) {
        result.cursor = probe.cursor;
        return result;
      }
      const watermark = await readWatermark(client);
      for (;;) {
        const page = await dispatchPage(client, {
          cursorId: options.cursorId,
          watermark,
          methodologyVersion: options.methodologyVersion,
          pageSize: options.pageSize,
          now: deps.now(),
        });
        if (!page.ran) break; // another dispatcher holds the cursor; it will see these rows
        result.cursor = page.to;
        result.eventsRead += page.eventsRead;
        result.deliveriesCreated += page.created.length;
        deps.metrics?.dispatchCursor.set(Number(page.to));
        if (page.created.length > 0) {
          deps.metrics?.deliveriesCreated.inc(page.created.length);
          try {
            result.enqueued += await enqueueDeliveries(
              deps.queue,
              page.created.map((d) => ({ deliveryId: d.id, attempt: 1 })),
            );
          } catch (error) {
            deps.metrics?.enqueueFailures.inc();
            deps.log.warn({ err: error, deliveries: page.created.length }, "enqueue failed; the minute job will re-enqueue these deliveries");
          }
        }
        if (!page.more) break;
      }
      return result;
    } finally {
      client.release();
    }
  }

  // One pass at a time; wake-ups during a pass coalesce into one more (core's coalesceRuns).
  const passes = coalesceRuns(
    async () => {
      const r = await pass();
      if (r.eventsRead > 0) deps.log.debug(r, "dispatch pass");
    },
    (error) => {
      deps.metrics?.dispatchErrors.inc();
      deps.log.error({ err: error }, "dispatch pass failed; retrying on the next wake-up");
    },
  );
  const wake = (): void => passes.run();

  function arm(): void {
    if (options.pollMs <= 0 || stopped) return;
    timer = setTimeout(() => {
      wake();
      arm();
    }, options.pollMs);
    timer.unref?.();
  }

  return {
    /** Start the poll timer and run a first pass. */
    start(): void {
      arm();
      wake();
    },
    wake,
    /** One pass, awaited (tests, benchmarks). */
    runOnce: pass,
    /** Resolves when no pass is running. */
    idle: () => passes.idle(),
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await passes.stop();
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
