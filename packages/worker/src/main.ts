import { pino } from "pino";
import { parseWorkerEnv } from "./env.ts";
import { startWorker } from "./startWorker.ts";

const env = parseWorkerEnv();
const log = pino({ name: "worker", level: env.LOG_LEVEL, base: { service: "worker" }, timestamp: pino.stdTimeFunctions.isoTime });
const running = await startWorker({
  databaseUrl: env.DATABASE_URL,
  redisUrl: env.REDIS_URL,
  prefix: env.QUEUE_PREFIX,
  concurrency: env.WORKER_CONCURRENCY,
  poolSize: env.WORKER_PG_POOL_SIZE,
  masterKey: env.masterKey,
  production: env.production,
  methodologyVersion: env.METHODOLOGY_VERSION,
  log,
  timeoutMs: env.DELIVERY_TIMEOUT_MS,
  leaseMs: env.DELIVERY_LEASE_MS,
  dispatch: { enabled: env.DISPATCH_ENABLED, pollMs: env.DISPATCH_POLL_MS, pageSize: env.DISPATCH_PAGE_SIZE },
  maintenanceIntervalMs: env.MAINTENANCE_INTERVAL_MS,
  metricsPort: env.WORKER_METRICS_PORT,
  metricsHost: env.WORKER_METRICS_HOST,
  shutdownGraceMs: env.WORKER_SHUTDOWN_GRACE_MS,
});

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: sig, graceMs: env.WORKER_SHUTDOWN_GRACE_MS }, "worker stopping: no new jobs, in-flight deliveries finish first");
    running.stop().then(
      () => {
        log.info("worker stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "worker stop failed");
        process.exit(1);
      },
    );
  });
}
