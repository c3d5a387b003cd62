import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

// Prisma's folder at the repository root (prisma/migrations, beside schema.prisma): two levels up from this package's
// src/ or dist/.
const prismaDir = path.resolve(import.meta.dirname, "..", "..", "..", "prisma");
export const MIGRATIONS_DIR = path.join(prismaDir, "migrations");

// The key Prisma's schema engine locks (`SELECT pg_advisory_lock(72707369)`): this runner and `prisma migrate` exclude each other.
const PRISMA_MIGRATE_LOCK = 72707369;

// Prisma's own bookkeeping table, created exactly as its schema engine does, so `prisma migrate status|deploy|dev` read our rows.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  /** sha256 of migration.sql, hex: the checksum Prisma records. */
  checksum: string;
}

/** prisma/migrations/<name>/migration.sql, in name order (the timestamp prefix). */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(dir, name, "migration.sql"));
      return { name, sql: bytes.toString("utf8"), checksum: createHash("sha256").update(bytes).digest("hex") };
    });
}

/**
 * Applies the pending migrations (prisma/migrations) to `connectionString`: what `prisma migrate deploy` does, in
 * process and without Prisma's CLI. Each migration runs in its own transaction together with its `_prisma_migrations`
 * row, so a failing one leaves nothing behind. Concurrent callers (several processes starting at once) serialise on
 * Prisma's advisory lock; the later ones find nothing pending. Refuses a database with a failed migration (recorded by
 * `prisma migrate` before: resolve it with `prisma migrate resolve`) or one whose applied migration.sql has changed.
 */
export async function migrateDeploy(connectionString: string, options: { quiet?: boolean; migrationsDir?: string } = {}): Promise<string[]> {
  const migrations = readMigrations(options.migrationsDir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATE_LOCK})`);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      "SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY started_at",
    );
    const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed) {
      throw new Error(
        `migration ${failed.migration_name} failed earlier and is not resolved (see _prisma_migrations.logs); fix the database, then mark it with \`prisma migrate resolve\``,
      );
    }
    const done = new Map(rows.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]));
    for (const migration of migrations) {
      const recorded = done.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) {
          throw new Error(`migration ${migration.name} was changed after it was applied (checksum ${recorded} in the database, ${migration.checksum} on disk)`);
        }
        continue;
      }
      try {
        await client.query("BEGIN");
        await client.query("INSERT INTO _prisma_migrations (id, checksum, migration_name) VALUES ($1, $2, $3)", [
          randomUUID(),
          migration.checksum,
          migration.name,
        ]);
        await client.query(migration.sql);
        await client.query(
          "UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE migration_name = $1 AND finished_at IS NULL",
          [migration.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw new Error(`migration ${migration.name} failed and was rolled back: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
      if (!options.quiet) process.stdout.write(`Applied migration ${migration.name}\n`);
    }
    if (!options.quiet && applied.length === 0) process.stdout.write("No pending migrations to apply.\n");
    return applied;
  } finally {
    // Ending the session releases the advisory lock too; unlock first so a pooled server-side session never keeps it.
    await client.query(`SELECT pg_advisory_unlock(${PRISMA_MIGRATE_LOCK})`).catch(() => {});
    await client.end();
  }
}
