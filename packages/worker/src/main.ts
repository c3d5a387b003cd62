import { pino } from "pino";
import { parseWorkerEnv } from "./env.ts";
import { startWorker } from "./startWorker.ts";

const env = parseWorkerEnv();
const log = pino({ name: "worker", level: env.LOG_LEVEL, base: { service: "worker" }, timestamp: pino.stdTimeFunctions.isoTime });
const running = await startWorker({ redisUrl: env.REDIS_URL, prefix: env.QUEUE_PREFIX, concurrency: env.WORKER_CONCURRENCY, log });

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: sig }, "worker stopping (in-flight jobs finish first)");
    await running.stop();
    log.info("worker stopped");
  });
}
