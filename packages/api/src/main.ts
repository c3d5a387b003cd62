import { parseMasterKey } from "@agent-ledger/core";
import { createPgPool } from "@agent-ledger/db";
import { pino } from "pino";
import { buildApp } from "./buildApp.ts";
import { parseApiEnv } from "./env.ts";
import { redactUrl } from "./ops/redactUrl.ts";

const env = parseApiEnv();
const log = pino({ name: "api", level: env.LOG_LEVEL, base: { service: "api" }, timestamp: pino.stdTimeFunctions.isoTime });
const pool = createPgPool(env.DATABASE_URL, { max: 10, applicationName: "agent-ledger-api" });
// An idle connection that dies (database restart, failover) must not crash the process: the pool replaces it.
pool.on("error", (err) => log.warn({ err: err.message }, "idle database connection lost"));
// Public reads on streaming replicas (docs/operations.md, "Read replicas"). A connect times out, so a replica that stops
// answering costs a read one timeout before the primary answers it, not forever.
const readPools = env.DATABASE_READ_URLS.map((url, i) => {
  const name = `replica${i + 1}`;
  const replica = createPgPool(url, { max: 10, applicationName: "agent-ledger-api-read", connectionTimeoutMillis: 2_000 });
  replica.on("error", (err) => log.warn({ replica: name, err: err.message }, "idle replica connection lost"));
  log.info({ replica: name, url: redactUrl(url) }, "read replica configured");
  return { name, pool: replica };
});
const app = buildApp({
  webhooks: { masterKey: env.SECRETS_MASTER_KEY ? parseMasterKey(env.SECRETS_MASTER_KEY) : null, production: env.NODE_ENV === "production" },
  wallet: {
    masterKey: env.SECRETS_MASTER_KEY ? parseMasterKey(env.SECRETS_MASTER_KEY) : null,
    production: env.NODE_ENV === "production",
    publicBaseUrl: env.PUBLIC_BASE_URL,
    rpId: env.WEBAUTHN_RP_ID,
    origins: env.WEBAUTHN_ORIGIN,
    rpcUrl: env.TEMPO_RPC_URL,
    publicRpcUrl: env.TEMPO_PUBLIC_RPC_URL,
    chainId: env.TEMPO_CHAIN_ID,
    explorerBaseUrl: env.EXPLORER_BASE_URL,
    defaultToken: env.WALLET_DEFAULT_TOKEN as `0x${string}`,
    sponsorPrivateKey: env.SPONSOR_PRIVATE_KEY as `0x${string}` | undefined,
    sweepIntervalMs: env.WALLET_SWEEP_INTERVAL_MS,
    redisUrl: env.REDIS_URL,
    rateLimitPrefix: env.RATE_LIMIT_PREFIX,
    trustProxy: env.TRUST_PROXY,
    startPerMinute: env.WALLET_START_PER_MINUTE,
    codePerMinute: env.WALLET_CODE_PER_MINUTE,
    codePerUserPerMinute: env.WALLET_CODE_PER_USER_PER_MINUTE,
    webauthnOptionsPerMinute: env.WALLET_WEBAUTHN_OPTIONS_PER_MINUTE,
    relayPerMinute: env.WALLET_RELAY_PER_MINUTE,
    challengesPerClient: env.WEBAUTHN_CHALLENGES_PER_CLIENT,
  },
  pool,
  readPools,
  readRouting: { maxLagBlocks: env.READ_REPLICA_MAX_LAG_BLOCKS, checkIntervalMs: env.READ_REPLICA_CHECK_MS },
  log,
  methodologyVersion: env.METHODOLOGY_VERSION,
  dashboardCacheTtlMs: env.DASHBOARD_CACHE_TTL_MS,
  graphqlLimits: { maxDepth: env.GRAPHQL_MAX_DEPTH, maxCost: env.GRAPHQL_MAX_COST, maxAliases: env.GRAPHQL_MAX_ALIASES, maxTokens: env.GRAPHQL_MAX_TOKENS },
  feed: {
    enabled: env.NEXT_PUBLIC_LIVE_FEED === "1",
    heartbeatMs: env.FEED_HEARTBEAT_MS,
    pollMs: env.FEED_POLL_MS,
    retryMs: env.FEED_RETRY_MS,
    maxBufferedRows: env.FEED_MAX_BUFFERED_ROWS,
  },
  readiness: {
    redisUrl: env.REDIS_URL,
    rpcUrl: env.TEMPO_RPC_URL,
    maxLagBlocks: env.READY_MAX_LAG_BLOCKS,
    maxCheckpointAgeSeconds: env.READY_MAX_CHECKPOINT_AGE_S,
    timeoutMs: env.READY_TIMEOUT_MS,
  },
});
if (!env.SPONSOR_PRIVATE_KEY || !env.TEMPO_RPC_URL || !env.SECRETS_MASTER_KEY)
  log.warn("wallet: SPONSOR_PRIVATE_KEY, TEMPO_RPC_URL or SECRETS_MASTER_KEY is not set: approvals and payments answer 503 not_configured");
if (!env.TEMPO_RPC_URL) log.warn("TEMPO_RPC_URL is not set: /readyz cannot measure the indexer lag (only the checkpoint age bound applies)");
const url = await app.start(env.API_PORT, env.API_HOST);
log.info({ url, methodologyVersion: env.METHODOLOGY_VERSION }, "api listening (GraphQL at /graphql, REST under /api)");

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: sig }, "api stopping");
    await app.stop();
    await pool.end();
    await Promise.all(readPools.map((r) => r.pool.end()));
    log.info("api stopped");
  });
}
