import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const apiEnvSchema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/agent_ledger"),
  API_HOST: z.string().default("127.0.0.1"),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** The methodology version whose rows (and rollups) are served; no other version is ever read. */
  METHODOLOGY_VERSION: z.string().regex(/^v\d+\.\d+$/, "must look like v0.N").default("v0.1"),
  /** In-process dashboard cache per window (the edge caches 5 minutes on top). 0 disables it. */
  DASHBOARD_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  GRAPHQL_MAX_DEPTH: positiveInt(10),
  GRAPHQL_MAX_COST: positiveInt(5_000),
  GRAPHQL_MAX_ALIASES: positiveInt(15),
  GRAPHQL_MAX_TOKENS: positiveInt(2_000),
});
export type ApiEnv = z.infer<typeof apiEnvSchema>;

export function parseApiEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
  const result = apiEnvSchema.safeParse(env);
  if (!result.success) throw new Error(`invalid api configuration: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return result.data;
}
