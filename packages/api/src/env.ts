import { DEFAULT_METHODOLOGY_VERSION } from "@agent-ledger/core";
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const apiEnvSchema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/agent_ledger"),
  /**
   * Streaming replicas of DATABASE_URL for the public reads, comma-separated (docs/operations.md, "Read replicas").
   * Unset or empty = every read on DATABASE_URL.
   */
  DATABASE_READ_URLS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().url("each DATABASE_READ_URLS entry must be a URL"))),
  /**
   * A replica whose indexer checkpoint trails the primary's by more blocks than this is not read. 10: more than the
   * blocks one following batch of the indexer moves the checkpoint by (so a streaming replica does not flap), and a few
   * seconds of chain time, no staler than the dashboard's own 5 s cache.
   */
  READ_REPLICA_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(10),
  /** How often each replica (and the primary) is probed for its checkpoint and WAL position. */
  READ_REPLICA_CHECK_MS: positiveInt(1_000),
  API_HOST: z.string().default("127.0.0.1"),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** The methodology version whose rows (and rollups) are served; no other version is ever read. */
  METHODOLOGY_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "must look like v0.N")
    .default(DEFAULT_METHODOLOGY_VERSION), // the indexer's default, from core (docs/methodology.md)
  /** In-process dashboard cache per window (the edge caches 5 minutes on top). 0 disables it. */
  DASHBOARD_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  GRAPHQL_MAX_DEPTH: positiveInt(10),
  GRAPHQL_MAX_COST: positiveInt(5_000),
  GRAPHQL_MAX_ALIASES: positiveInt(15),
  GRAPHQL_MAX_TOKENS: positiveInt(2_000),
  /** Live feed (`/api/feed` SSE, `/graphql/stream` graphql-sse): "1" enables it; anything but "0"/"1" is a config error. */
  NEXT_PUBLIC_LIVE_FEED: z.enum(["0", "1"]).default("0"),
  /** SSE `: ping` comment interval. */
  FEED_HEARTBEAT_MS: positiveInt(15_000),
  /** The feed hub re-reads new rows this often even without a NOTIFY. */
  FEED_POLL_MS: positiveInt(5_000),
  /** SSE `retry:` (client reconnect delay). */
  FEED_RETRY_MS: positiveInt(2_000),
  /** Rows a feed subscriber may have waiting before it is dropped. */
  FEED_MAX_BUFFERED_ROWS: positiveInt(1_000),
  NODE_ENV: z.string().default("development"),
  /** 32-byte key (base64 or hex) sealing webhook signing secrets, verify tokens and agent keys. No default. */
  SECRETS_MASTER_KEY: z.string().optional(),
  /** Redis that /readyz PINGs and that holds the wallet rate-limit counters. */
  REDIS_URL: z.string().url().default("redis://127.0.0.1:6379"),
  /** Tempo JSON-RPC whose eth_blockNumber /readyz compares with the indexer checkpoint; unset or empty = lag not checked. */
  TEMPO_RPC_URL: z
    .union([z.literal(""), z.string().url()])
    .optional()
    .transform((v) => v || undefined),
  /** /readyz fails when the checkpoint trails the chain head by more blocks than this. */
  READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(100),
  /** /readyz fails when the checkpoint has not moved for this long while not at the head (0 = no bound). */
  READY_MAX_CHECKPOINT_AGE_S: z.coerce.number().int().min(0).default(300),
  /** Timeout of each readiness check (database, Redis PING, eth_blockNumber). */
  READY_TIMEOUT_MS: positiveInt(1_000),
  // ── Wallet (docs/wallet.md) ──
  /** Where the approval page is served: approve_url = ${PUBLIC_BASE_URL}/approve?code=…, relay at ${PUBLIC_BASE_URL}/api/wallet/relay. */
  PUBLIC_BASE_URL: z.string().url().default("http://localhost:3000"),
  /** Expected WebAuthn RP ID. */
  WEBAUTHN_RP_ID: z.string().min(1).default("localhost"),
  /** Expected WebAuthn origin(s), comma-separated (default: PUBLIC_BASE_URL's origin). */
  WEBAUTHN_ORIGIN: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((o) => o.trim())
            .filter(Boolean)
        : undefined,
    ),
  /** RPC URL handed to the approval page (default TEMPO_RPC_URL). */
  TEMPO_PUBLIC_RPC_URL: z
    .union([z.literal(""), z.string().url()])
    .optional()
    .transform((v) => v || undefined),
  /** Chain id (default: asked from TEMPO_RPC_URL). */
  TEMPO_CHAIN_ID: z.coerce.number().int().positive().optional(),
  /** explorer_url = ${EXPLORER_BASE_URL}/tx/<hash> (unset: null). */
  EXPLORER_BASE_URL: z
    .union([z.literal(""), z.string().url()])
    .optional()
    .transform((v) => v || undefined),
  /** Token of a wallet session when approve-init names none, and the sponsor's fee token (default pathUSD). */
  WALLET_DEFAULT_TOKEN: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be an address")
    .default("0x20c0000000000000000000000000000000000000"),
  /** How often payments left `reserved` by an interrupted request are settled from the chain (ms; 0 = never). */
  WALLET_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  // ── Rate limits (docs/wallet.md § Rate limits): counters in Redis (REDIS_URL), shared by every API process ──
  /** Proxies in front of the API whose X-Forwarded-For entry is believed for the client address (0 = the socket address). */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** Prefix of the rate-limit counters in Redis; API processes that share budgets use the same one. */
  RATE_LIMIT_PREFIX: z.string().min(1).default("al:rl"),
  /** Per minute and client address (0 = unlimited): device/start. */
  WALLET_START_PER_MINUTE: z.coerce.number().int().min(0).default(10),
  /** Per minute and client address: requests carrying a device code (lookup, approve-init, approve-finalize together). */
  WALLET_CODE_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  /** Per minute and signed-in passkey user: the same requests. */
  WALLET_CODE_PER_USER_PER_MINUTE: z.coerce.number().int().min(0).default(20),
  /** Per minute and client address: webauthn register/options + auth/options (each stores a challenge). */
  WALLET_WEBAUTHN_OPTIONS_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  /** Per minute and client address: the sponsoring relay. */
  WALLET_RELAY_PER_MINUTE: z.coerce.number().int().min(0).default(120),
  /** Unused WebAuthn challenges kept per client address (older ones are deleted; expired ones at the next options call). */
  WEBAUTHN_CHALLENGES_PER_CLIENT: positiveInt(20),
  /** The gas sponsor's private key (relay fee payer and payment fee payer). No default. */
  SPONSOR_PRIVATE_KEY: z
    .union([z.literal(""), z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x + 64 hex")])
    .optional()
    .transform((v) => v || undefined),
});
export type ApiEnv = z.infer<typeof apiEnvSchema>;

export function parseApiEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
  const result = apiEnvSchema.safeParse(env);
  if (!result.success) throw new Error(`invalid api configuration: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  if (result.data.NODE_ENV === "production" && !result.data.SECRETS_MASTER_KEY)
    throw new Error("invalid api configuration: SECRETS_MASTER_KEY is required in production");
  return result.data;
}
