import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import type { AppDeps } from "../../src/buildApp.ts";
import { seedDevnetLedger, type SeededLedger } from "./seedDevnetLedger.ts";
import { startTestApp, type TestApp } from "./startTestApp.ts";

/** A test database with the devnet-built ledger (seedDevnetLedger), the real app over it and a SQL client. */
export interface SeededApp {
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  seeded: SeededLedger;
  t: TestApp;
  sql: pg.Client;
  /** Stops all of it (what exists of it). */
  close(): Promise<void>;
}

/**
 * The read-side tests' set-up (graphql, rest.contract, explorer.api): the app's clock is the ledger's `now` unless
 * `deps` says otherwise.
 */
export async function startSeededApp(deps: Partial<Omit<AppDeps, "pool">> = {}): Promise<SeededApp> {
  const db = await createTestDatabase();
  const seeded = await seedDevnetLedger(db.url);
  const t = await startTestApp(db.url, { now: () => seeded.now, ...deps });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  return {
    db,
    seeded,
    t,
    sql,
    close: async () => {
      await sql.end();
      await t.close();
      await seeded.stop();
      await db.drop();
    },
  };
}
