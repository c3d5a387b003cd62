import crypto from "node:crypto";
import pg from "pg";

// Test databases are named after the test run (the vitest main process id), so two runs on one
// PostgreSQL — a developer's and CI's, or two terminals — never touch each other's databases.
const PREFIX = "agent_ledger_t";

/** The run id: set by the global setup in the main process, inherited by the test workers. */
function runId(): string {
  const id = process.env.AGENT_LEDGER_TEST_RUN;
  if (!id) throw new Error("AGENT_LEDGER_TEST_RUN is not set: run tests through vitest (vitest.globalSetup.ts)");
  return id;
}

export function templateName(run = runId()): string {
  return `${PREFIX}_${run}_template`;
}

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
 * A fresh, migrated database for one test file (copied from the run's template), and a function that
 * drops it. Each test file gets its own database, so files run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `${PREFIX}_${runId()}_${crypto.randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName()}"`));
  const url = adminUrl();
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      admin(async (c) => {
        // A pool's end() can resolve while its connections are still closing; FORCE would then terminate them mid-close
        // and their FATAL message surfaces as an uncaught error in the test process. Let them finish first (≤ 1 s).
        for (let i = 0; i < 50; i++) {
          const { rows } = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Once per run (global setup): migrates this run's template database, and drops the databases left
 * behind by earlier runs whose process is gone (killed before their cleanup). Returns the teardown.
 */
export async function prepareTemplateDatabase(migrate: (url: string) => Promise<void>): Promise<() => Promise<void>> {
  const run = String(process.pid);
  process.env.AGENT_LEDGER_TEST_RUN = run;
  const template = templateName(run);
  await admin(async (c) => {
    const { rows } = await c.query("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${PREFIX}\\_%`]);
    for (const { datname } of rows as { datname: string }[]) {
      const owner = Number(/^agent_ledger_t_(\d+)_/.exec(datname)?.[1]);
      if (owner && owner !== process.pid && processAlive(owner)) continue; // another live run's
      await c.query(`UPDATE pg_database SET datistemplate = false WHERE datname = $1`, [datname]);
      await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await c.query(`CREATE DATABASE "${template}"`);
  });
  const url = adminUrl();
  url.pathname = `/${template}`;
  await migrate(url.toString());
  return async () => {
    await admin(async (c) => {
      const { rows } = await c.query("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${PREFIX}\\_${run}\\_%`]);
      for (const { datname } of rows as { datname: string }[]) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  };
}
export { startReplicaPair, type ReplicaPair, type ReplicaPairOptions } from "./startReplicaPair.ts";
