import pg from "pg";
import { ensureDatabase } from "./ensureDatabase.ts";
import { migrateDeploy } from "./migrateDeploy.ts";

/**
 * Benchmarks' fresh start: creates the database if needed, drops everything in its `public` schema and applies every
 * migration. Destroys the data: never point it at a database that matters.
 */
export async function resetDatabase(connectionString: string): Promise<void> {
  await ensureDatabase(connectionString);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  } finally {
    await client.end();
  }
  await migrateDeploy(connectionString, { quiet: true });
}
