import { z } from "zod";

export const workerEnvSchema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/agent_ledger"),
  REDIS_URL: z.string().url().default("redis://127.0.0.1:6379"),
  /** Prefix of every BullMQ key, so several deployments (or test runs) can share one Redis. */
  QUEUE_PREFIX: z.string().min(1).default("agent-ledger"),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type WorkerEnv = z.infer<typeof workerEnvSchema>;

export function parseWorkerEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const result = workerEnvSchema.safeParse(env);
  if (!result.success) throw new Error(`invalid worker configuration: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return result.data;
}
