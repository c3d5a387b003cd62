import { DEFAULT_METHODOLOGY_VERSION, METHODOLOGY_VERSIONS } from "@agent-ledger/core";
import { z } from "zod";

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** Indexer configuration, validated once at start-up. */
export const indexerEnvSchema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/agent_ledger"),
  TEMPO_RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  /** First block to index when no checkpoint exists yet. */
  START_BLOCK: int(0),
  /** Blocks to stay behind the head. Tempo has deterministic finality, so 0 is safe there. */
  CONFIRMATIONS: int(0),
  /** Rows link to `${base}/tx/<hash>`. Unset: the registry file's `explorer_base_url`, else DEFAULT_EXPLORER_BASE_URL. */
  EXPLORER_BASE_URL: z
    .union([z.literal(""), z.string().url()])
    .optional()
    .transform((v) => v || undefined),
  /** Unset (or empty): the default of the RPC's chain, registryFileForChain (4217 mainnet, 42431 testnet, 31337 demo). */
  REGISTRY_FILE: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  /** v0.2 for new installs; v0.1 stays selectable (docs/methodology.md, "Migration from v0.1"). */
  METHODOLOGY_VERSION: z.enum(METHODOLOGY_VERSIONS).default(DEFAULT_METHODOLOGY_VERSION),
  CHUNK_INITIAL_BLOCKS: int(100, 1),
  CHUNK_MIN_BLOCKS: int(1, 1),
  CHUNK_MAX_BLOCKS: int(10_000, 1),
  CHUNK_TARGET_MS: int(2_000, 1),
  /** Batch size cap: smaller batches overlap better (fetch, match, write) and cost PostgreSQL less per log (BENCHMARKS.md). */
  CHUNK_MAX_LOGS: int(10_000, 1),
  /** eth_getLogs requests kept in flight during a backfill; 1 for a rate-limited RPC provider. */
  FETCH_AHEAD: int(2, 1),
  /** 1: keep every fetched log in raw_logs (re-matching can then find a newly watched entity's history). */
  STORE_ALL_LOGS: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1"),
  POLL_INTERVAL_MS: int(500, 10),
  RPC_TIMEOUT_MS: int(30_000, 100),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** /metrics and /healthz on http://<INDEXER_METRICS_HOST>:<port> (docs/operations.md); 0 picks a free port; -1 disables the server. */
  INDEXER_METRICS_PORT: z.coerce.number().int().min(-1).max(65535).default(9465),
  /** Interface of that server: loopback by default (like WORKER_METRICS_HOST); 0.0.0.0 for a scraper on another host. */
  INDEXER_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
});

export type IndexerEnv = z.infer<typeof indexerEnvSchema>;

/** Tempo mainnet's explorer: the explorer base when neither EXPLORER_BASE_URL nor the registry names one. */
export const DEFAULT_EXPLORER_BASE_URL = "https://explore.tempo.xyz";

/** The explorer base as loadMatchContext takes it: EXPLORER_BASE_URL wins, else the registry's, else mainnet's. */
export function explorerBase(env: IndexerEnv): { override?: string; fallback: string } {
  return { override: env.EXPLORER_BASE_URL, fallback: DEFAULT_EXPLORER_BASE_URL };
}

export function parseIndexerEnv(env: NodeJS.ProcessEnv = process.env): IndexerEnv {
  const result = indexerEnvSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid indexer configuration: ${problems}`);
  }
  if (result.data.CHUNK_MIN_BLOCKS > result.data.CHUNK_MAX_BLOCKS) throw new Error("invalid indexer configuration: CHUNK_MIN_BLOCKS > CHUNK_MAX_BLOCKS");
  return result.data;
}
