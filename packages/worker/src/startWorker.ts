import { Queue, type Worker } from "bullmq";
import { createPgPool } from "@agent-ledger/db";
import { startOpsServer, type ResolveHost } from "@agent-ledger/runtime";
import type { Logger } from "pino";
import { DELIVERY_QUEUE, DISPATCH_CURSOR_ID, MAINTENANCE_QUEUE } from "./constants.ts";
import { closeDeliveryWorker } from "./delivery/closeDeliveryWorker.ts";
import { createDeliveryProcessor, type AttemptInfo } from "./delivery/createDeliveryProcessor.ts";
import { createWebhookClient } from "./delivery/createWebhookClient.ts";
import { startDeliveryWorker } from "./delivery/startDeliveryWorker.ts";
import { createDispatcher, type Dispatcher } from "./dispatch/createDispatcher.ts";
import { startNotificationRelay } from "./dispatch/startNotificationRelay.ts";
import { requeueDueDeliveries } from "./maintenance/requeueDueDeliveries.ts";
import { startMaintenanceJob } from "./maintenance/startMaintenanceJob.ts";
import { createWorkerMetrics } from "./ops/createWorkerMetrics.ts";
import { connectRedis } from "./queue/connectRedis.ts";
import type { DeliveryJobData } from "./queue/deliveryJob.ts";

export interface StartWorkerOptions {
  databaseUrl: string;
  redisUrl: string;
  /** BullMQ key prefix (tests use one per test). */
  prefix: string;
  concurrency: number;
  /** PostgreSQL connections of this process (default min(concurrency, 12) + 3). */
  poolSize?: number;
  masterKey: Buffer;
  /** NODE_ENV=production: SSRF policy on. */
  production: boolean;
  methodologyVersion: string;
  log: Logger;
  timeoutMs?: number;
  leaseMs?: number;
  dispatch?: { enabled?: boolean; pollMs?: number; pageSize?: number; cursorId?: string };
  /** Run the delivery processor (default true). False: dispatch (and maintenance) only. */
  deliver?: boolean;
  maintenanceIntervalMs?: number;
  /** -1/undefined: no metrics server; 0: a free port. */
  metricsPort?: number;
  /** Address the metrics server binds (default 127.0.0.1: loopback only). */
  metricsHost?: string;
  shutdownGraceMs?: number;
  // Injection points (tests, benchmarks):
  now?: () => Date;
  random?: () => number;
  /** Divides every real wait (retry delays, the claim lease) — a test clock runs `delayScale` times faster. */
  delayScale?: number;
  resolveHost?: ResolveHost;
  onAttempt?: (attempt: AttemptInfo) => void;
}

export interface RunningWorker {
  dispatcher: Dispatcher | null;
  deliveryQueue: Queue<DeliveryJobData>;
  maintenanceQueue: Queue;
  metrics: ReturnType<typeof createWorkerMetrics>;
  metricsPort: number | null;
  /** Runs the minute job's body once, now (tests). */
  requeueDue(now?: Date): ReturnType<typeof requeueDueDeliveries>;
  /** Stop taking jobs, let in-flight ones finish (up to the grace period), close everything. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Wires the webhook engine of one process: the dispatcher (durable cursor over agent_events, woken by
 * NOTIFY agent_events), the delivery worker (BullMQ, `concurrency` jobs at once), the NOTIFY
 * webhook_deliveries listener (verification pings, redeliveries, resumes from the API), the minute job,
 * and the metrics server. Several processes on one Redis and database share the work.
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const { log } = options;
  const now = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const delayScale = options.delayScale ?? 1;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? Math.max(30_000, timeoutMs * 3);
  const deliver = options.deliver ?? true;
  const dispatchEnabled = options.dispatch?.enabled ?? true;

  // Each job holds a connection only for its claim and its record statements (not during the POST), so a
  // small pool serves a high concurrency; PostgreSQL's connection limit is shared with every other service.
  const pool = createPgPool(options.databaseUrl, { max: options.poolSize ?? Math.min(options.concurrency, 12) + 3, applicationName: "agent-ledger-worker" });
  pool.on("error", (error) => log.warn({ err: error }, "idle PostgreSQL connection error"));
  const connection = await connectRedis(options.redisUrl, log);

  const deliveryQueue = new Queue<DeliveryJobData>(DELIVERY_QUEUE, { connection, prefix: options.prefix });
  const maintenanceQueue = new Queue(MAINTENANCE_QUEUE, { connection, prefix: options.prefix });
  deliveryQueue.on("error", (error) => log.warn({ err: error }, "delivery queue error"));
  maintenanceQueue.on("error", (error) => log.warn({ err: error }, "maintenance queue error"));

  const metrics = createWorkerMetrics({
    queueCounts: async () => ({
      [DELIVERY_QUEUE]: await deliveryQueue.getJobCounts("waiting", "delayed", "active", "prioritized", "failed"),
      [MAINTENANCE_QUEUE]: await maintenanceQueue.getJobCounts("waiting", "delayed", "active"),
    }),
  });
  const client = createWebhookClient({ production: options.production, timeoutMs, resolve: options.resolveHost });
  const requeueDue = (at = now()) => requeueDueDeliveries(pool, deliveryQueue, { now: at });

  const deliveryWorker: Worker<DeliveryJobData> | null = deliver
    ? startDeliveryWorker(
        {
          connection,
          log,
          processDelivery: createDeliveryProcessor(
            { pool, queue: deliveryQueue, client, masterKey: options.masterKey, log, metrics, now, random, onAttempt: options.onAttempt },
            { leaseMs, delayScale },
          ),
        },
        { prefix: options.prefix, concurrency: options.concurrency, timeoutMs },
      )
    : null;
  const maintenance = await startMaintenanceJob(
    { connection, queue: maintenanceQueue, log, metrics, requeueDue: () => requeueDue() },
    { prefix: options.prefix, intervalMs: options.maintenanceIntervalMs ?? 60_000 },
  );
  const dispatcher = dispatchEnabled
    ? createDispatcher(
        { pool, queue: deliveryQueue, log, metrics, now },
        {
          cursorId: options.dispatch?.cursorId ?? DISPATCH_CURSOR_ID,
          methodologyVersion: options.methodologyVersion,
          pageSize: options.dispatch?.pageSize ?? 1_000,
          pollMs: options.dispatch?.pollMs ?? 1_000,
        },
      )
    : null;
  const relay = await startNotificationRelay({ databaseUrl: options.databaseUrl, pool, queue: deliveryQueue, dispatcher, log, metrics, now }, { delayScale });
  dispatcher?.start();
  // "ready" means the dispatch cursor exists: on a first run it starts at the watermark ("from now on"), so
  // events inserted after the ready line are dispatched even when the first pass is slow (a loaded machine).
  await dispatcher?.idle();

  const metricsServer =
    options.metricsPort !== undefined && options.metricsPort >= 0
      ? await startOpsServer({
          port: options.metricsPort,
          host: options.metricsHost ?? "127.0.0.1",
          metrics: () => metrics.registry.metrics(),
          contentType: metrics.registry.contentType,
        })
      : null;

  if (deliveryWorker) await deliveryWorker.waitUntilReady();
  log.info(
    {
      prefix: options.prefix,
      concurrency: options.concurrency,
      dispatch: dispatchEnabled,
      deliver,
      production: options.production,
      metricsPort: metricsServer?.port ?? null,
    },
    "webhook worker ready",
  );

  let stopping: Promise<void> | null = null;
  return {
    dispatcher,
    deliveryQueue,
    maintenanceQueue,
    metrics,
    metricsPort: metricsServer?.port ?? null,
    requeueDue,
    stop(graceMs = options.shutdownGraceMs ?? 15_000) {
      stopping ??= (async () => {
        maintenance.stopScheduler();
        relay.cancelFlush();
        await relay.close();
        await dispatcher?.stop();
        await relay.flushing();
        if (deliveryWorker) await closeDeliveryWorker(deliveryWorker, graceMs, log);
        await maintenance.close();
        await Promise.allSettled([deliveryQueue.close(), maintenanceQueue.close()]);
        client.close();
        await connection.quit().catch(() => connection.disconnect());
        await pool.end().catch(() => {});
        await metricsServer?.close();
      })();
      return stopping;
    },
  };
}
