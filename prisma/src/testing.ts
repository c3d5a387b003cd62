import crypto from "node:crypto";
import pg from "pg";

/** Name of the migrated template database that the test global setup prepares. */
export const TEST_TEMPLATE_DB = "agent_ledger_test_template";

export function adminUrl(base = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres"): URL {
  const url = new URL(base);
  url.pathname = "/postgres";
  return url;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl().toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated database for one test file (copied from the template), and a function that drops it.
 * Each test file gets its own database, so files can run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `agent_ledger_test_${crypto.randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEST_TEMPLATE_DB}"`));
  const url = adminUrl();
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** Recreates the template database from the migrations (called once per test run). */
export async function prepareTemplateDatabase(migrate: (url: string) => Promise<void>): Promise<void> {
  await admin(async (c) => {
    await c.query(`UPDATE pg_database SET datistemplate = false WHERE datname = '${TEST_TEMPLATE_DB}'`).catch(() => {});
    await c.query(`DROP DATABASE IF EXISTS "${TEST_TEMPLATE_DB}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${TEST_TEMPLATE_DB}"`);
  });
  const url = adminUrl();
  url.pathname = `/${TEST_TEMPLATE_DB}`;
  await migrate(url.toString());
  // Drop leftovers of earlier runs that were killed before their cleanup.
  await admin(async (c) => {
    const { rows } = await c.query(
      "SELECT datname FROM pg_database WHERE datname LIKE 'agent_ledger_test_%' AND datname <> $1",
      [TEST_TEMPLATE_DB],
    );
    for (const row of rows) await c.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  });
}
