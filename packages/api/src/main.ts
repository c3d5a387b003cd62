import { createPgPool } from "@agent-ledger/db";
import { pino } from "pino";
import { buildApp } from "./buildApp.ts";
import { parseApiEnv } from "./env.ts";

const env = parseApiEnv();
const log = pino({ name: "api", level: env.LOG_LEVEL, base: { service: "api" }, timestamp: pino.stdTimeFunctions.isoTime });
const pool = createPgPool(env.DATABASE_URL, { max: 10, applicationName: "agent-ledger-api" });
const app = buildApp({
  pool,
  log,
  methodologyVersion: env.METHODOLOGY_VERSION,
  dashboardCacheTtlMs: env.DASHBOARD_CACHE_TTL_MS,
  graphqlLimits: { maxDepth: env.GRAPHQL_MAX_DEPTH, maxCost: env.GRAPHQL_MAX_COST, maxAliases: env.GRAPHQL_MAX_ALIASES, maxTokens: env.GRAPHQL_MAX_TOKENS },
});
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
    log.info("api stopped");
  });
}
