import { createPgPool } from "@agent-ledger/db";
import type pg from "pg";
import { pino } from "pino";
import { buildApp, type App, type AppDeps } from "../../src/buildApp.ts";
import { TEST_RATE_LIMITS } from "./walletApp.ts";

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

export interface TestApp {
  app: App;
  url: string;
  pool: pg.Pool;
  /** Number of SQL statements the app issued so far (N+1 checks). */
  queries(): number;
  close(): Promise<void>;
}

/** The real app on a free port over `databaseUrl`, counting the SQL statements it sends. */
export async function startTestApp(databaseUrl: string, deps: Partial<Omit<AppDeps, "pool">> = {}): Promise<TestApp> {
  const pool = createPgPool(databaseUrl, { max: 5, applicationName: "agent-ledger-api-test" });
  pool.on("error", () => {}); // an idle client killed by the teardown's DROP DATABASE … FORCE is not a failure
  let count = 0;
  const counting = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === "query") return (...args: Parameters<pg.Pool["query"]>) => (count++, (target.query as (...a: unknown[]) => unknown)(...args));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // wallet rate limits on this app's own Redis key prefix, out of the way of functional tests (support/walletApp.ts)
  const app = buildApp({ pool: counting, log: silentLog, dashboardCacheTtlMs: 0, ...deps, wallet: { ...TEST_RATE_LIMITS(), ...deps.wallet } });
  const url = await app.start(0);
  return {
    app,
    url,
    pool,
    queries: () => count,
    close: async () => {
      await app.stop();
      await pool.end();
    },
  };
}
