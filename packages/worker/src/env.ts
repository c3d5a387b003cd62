import { DEFAULT_METHODOLOGY_VERSION, parseMasterKey } from "@agent-ledger/core";
import { z } from "zod";

const ms = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);
const flag = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(fallback ? "true" : "false")
    .transform((v) => v === "true" || v === "1");

export const workerEnvSchema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/agent_ledger"),
  REDIS_URL: z.string().url().default("redis://127.0.0.1:6379"),
  /** Prefix of every BullMQ key, so several deployments (or test runs) can share one Redis. */
  QUEUE_PREFIX: z.string().min(1).default("agent-ledger"),
  /** Delivery jobs processed at once by this process (each is one HTTP POST at most). */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(32),
  /** PostgreSQL connections of this process; jobs hold one only for their claim/record statements. Default min(concurrency, 12) + 3. */
  WORKER_PG_POOL_SIZE: z.coerce.number().int().min(2).max(200).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** `production` turns on the SSRF policy (https only, public addresses only). */
  NODE_ENV: z.string().default("development"),
  /** 32-byte key (base64 or 64 hex) that sealed the signing secrets and verify tokens. Required, no default. */
  SECRETS_MASTER_KEY: z.string({ error: "SECRETS_MASTER_KEY is required (32 bytes, base64 or hex)" }).min(1, "SECRETS_MASTER_KEY is required"),
  /** Only agent_events rows of this methodology version are dispatched. */
  METHODOLOGY_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "must look like v0.N")
    .default(DEFAULT_METHODOLOGY_VERSION), // the indexer's default, from core (docs/methodology.md)
  /** Prometheus metrics on http://<WORKER_METRICS_HOST>:<port>/metrics; 0 picks a free port; -1 disables the server. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(-1).max(65535).default(9464),
  /** Address the metrics server binds: loopback by default (the metrics are not public); `0.0.0.0` for a remote scraper. */
  WORKER_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** Whole-attempt timeout of one webhook POST (connect + response + body). */
  DELIVERY_TIMEOUT_MS: ms(10_000),
  /**
   * How long a claimed attempt may stay unreported before the delivery is due again (a worker killed
   * mid-POST). Must exceed the timeout.
   */
  DELIVERY_LEASE_MS: ms(30_000),
  /** Fallback poll of the dispatcher (it is normally woken by NOTIFY agent_events). */
  DISPATCH_POLL_MS: ms(1_000),
  DISPATCH_PAGE_SIZE: z.coerce.number().int().min(1).max(50_000).default(1_000),
  /** Run the dispatcher in this process (every process may; they take turns on the cursor). */
  DISPATCH_ENABLED: flag(true),
  /** Period of the job that re-enqueues due deliveries missing from Redis (spec: every minute). */
  MAINTENANCE_INTERVAL_MS: ms(60_000, 100),
  /** SIGTERM: in-flight deliveries get this long to finish before they are abandoned to their lease. */
  WORKER_SHUTDOWN_GRACE_MS: ms(15_000, 0),
});
export type WorkerEnv = z.infer<typeof workerEnvSchema> & { masterKey: Buffer; production: boolean };

export function parseWorkerEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const result = workerEnvSchema.safeParse(env);
  if (!result.success) throw new Error(`invalid worker configuration: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const data = result.data;
  if (data.DELIVERY_LEASE_MS <= data.DELIVERY_TIMEOUT_MS) {
    throw new Error("invalid worker configuration: DELIVERY_LEASE_MS must be greater than DELIVERY_TIMEOUT_MS");
  }
  let masterKey: Buffer;
  try {
    masterKey = parseMasterKey(data.SECRETS_MASTER_KEY);
  } catch (error) {
    throw new Error(`invalid worker configuration: SECRETS_MASTER_KEY: ${(error as Error).message}`);
  }
  return { ...data, masterKey, production: data.NODE_ENV === "production" };
}
