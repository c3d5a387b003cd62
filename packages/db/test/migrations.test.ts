import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDeploy, u256FromDb } from "../src/index.ts";
import { MIGRATIONS_DIR, readMigrations } from "../src/migrateDeploy.ts";
import { createTestDatabase } from "../src/testing.ts";

const prismaDir = path.resolve(import.meta.dirname, "../../../prisma");
type DriftCheck = (options?: { schemaPath?: string }) => Promise<{ exitCode: number; script: string }>;
const loadDriftCheck = async (): Promise<DriftCheck> => (await import(path.join(prismaDir, "engine", "migrate-check.mjs") as string)).diffMigrationsToSchema;

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A test database with nothing in it (the template copy is migrated already). */
async function emptyDatabase(url: string) {
  await withClient(url, (c) => c.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public;"));
}

describe("migrations", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it("deploy is idempotent and records every migration as Prisma does (name, sha256 of migration.sql, finished, 1 step)", async () => {
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual([]);
    const rows = await withClient(
      db.url,
      async (c) =>
        (
          await c.query(
            "SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at, logs, applied_steps_count FROM _prisma_migrations ORDER BY started_at, migration_name",
          )
        ).rows,
    );
    const names = readMigrations().map((m) => m.name);
    expect(names.length).toBeGreaterThan(15);
    expect(rows).toEqual(
      names.map((name) => ({
        migration_name: name,
        checksum: createHash("sha256")
          .update(readFileSync(path.join(MIGRATIONS_DIR, name, "migration.sql")))
          .digest("hex"),
        finished: true,
        rolled_back_at: null,
        logs: null,
        applied_steps_count: 1,
      })),
    );
  });

  it("concurrent deploys on an empty database apply each migration exactly once (Prisma's advisory lock)", async () => {
    const scratch = await createTestDatabase();
    try {
      await emptyDatabase(scratch.url);
      const results = await Promise.all(Array.from({ length: 4 }, () => migrateDeploy(scratch.url, { quiet: true })));
      const names = readMigrations().map((m) => m.name);
      expect(results.flat().sort()).toEqual(names);
      const counts = await withClient(
        scratch.url,
        async (c) => (await c.query("SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY 1")).rows,
      );
      expect(counts).toHaveLength(names.length);
      expect(counts.every((r) => r.n === 1)).toBe(true);
    } finally {
      await scratch.drop();
    }
  });

  it("a failing migration is rolled back with its record; an edited applied one or an unresolved failure is refused", async () => {
    const scratch = await createTestDatabase();
    const dir = mkdtempSync(path.join(os.tmpdir(), "migrations-"));
    const write = (name: string, sql: string) => {
      mkdirSync(path.join(dir, name), { recursive: true });
      writeFileSync(path.join(dir, name, "migration.sql"), sql);
    };
    try {
      await emptyDatabase(scratch.url);
      writeFileSync(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');
      write("001_a", "CREATE TABLE a (x int);");
      write("002_b", "CREATE TABLE b (x int);\nINSERT INTO b VALUES ('not a number');");
      await expect(migrateDeploy(scratch.url, { quiet: true, migrationsDir: dir })).rejects.toThrow(/002_b failed and was rolled back/);
      await withClient(scratch.url, async (c) => {
        expect((await c.query("SELECT migration_name FROM _prisma_migrations")).rows).toEqual([{ migration_name: "001_a" }]);
        expect((await c.query("SELECT to_regclass('a') IS NOT NULL AS a, to_regclass('b') IS NOT NULL AS b")).rows[0]).toEqual({ a: true, b: false });
      });

      write("002_b", "CREATE TABLE b (x int);");
      expect(await migrateDeploy(scratch.url, { quiet: true, migrationsDir: dir })).toEqual(["002_b"]);

      write("001_a", "CREATE TABLE a (x bigint);");
      await expect(migrateDeploy(scratch.url, { quiet: true, migrationsDir: dir })).rejects.toThrow(/001_a was changed after it was applied/);

      write("001_a", "CREATE TABLE a (x int);");
      await withClient(scratch.url, (c) => c.query("INSERT INTO _prisma_migrations (id, checksum, migration_name) VALUES ('x', 'y', '003_failed_by_prisma')"));
      await expect(migrateDeploy(scratch.url, { quiet: true, migrationsDir: dir })).rejects.toThrow(/003_failed_by_prisma failed earlier/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await scratch.drop();
    }
  });

  it("schema.prisma and the migrations agree (drift check through the WASM schema engine), and a drift is caught", async () => {
    const diff = await loadDriftCheck();
    expect((await diff({})).exitCode).toBe(0);
    const drifted = path.join(mkdtempSync(path.join(os.tmpdir(), "schema-")), "schema.prisma");
    writeFileSync(
      drifted,
      readFileSync(path.join(prismaDir, "schema.prisma"), "utf8").replace(/^model Entity \{$/m, 'model Entity {\n  driftProbe Int? @map("drift_probe")'),
    );
    try {
      const result = await diff({ schemaPath: drifted });
      expect(result.exitCode).toBe(2);
      expect(result.script).toMatch(/ALTER TABLE "entities" ADD COLUMN\s+"drift_probe" INTEGER/);
    } finally {
      rmSync(path.dirname(drifted), { recursive: true, force: true });
    }
  });

  it('transaction hashes of raw_logs and agent_events compare byte by byte (COLLATE "C", set by migration only)', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT table_name, collation_name FROM information_schema.columns
         WHERE table_schema = 'public' AND column_name = 'tx_hash' AND table_name IN ('raw_logs', 'agent_events') ORDER BY table_name`,
      );
      expect(rows).toEqual([
        { table_name: "agent_events", collation_name: "C" },
        { table_name: "raw_logs", collation_name: "C" },
      ]);
      // Lookups by a text parameter and joins with parameter arrays (rematch, search) still work on the C column.
      const found = await client.query("SELECT count(*)::int AS n FROM agent_events WHERE tx_hash = ANY($1::text[])", [["0x" + "3".repeat(64)]]);
      expect(found.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it("stores a uint256 above 2^255 exactly in NUMERIC(78,0)", async () => {
    const max = 2n ** 256n - 1n;
    await withClient(db.url, async (client) => {
      await client.query("INSERT INTO entities (id, label, category, kind, source) VALUES ('e1', 'E', 'agent', 'agent', 'test')");
      const { rows } = await client.query(
        `INSERT INTO agent_events (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, kind, amount_wei,
           token_address, tx_hash, log_index, source_block, methodology_version, explorer_url)
         VALUES (now(), 'e1', 'E', 'agent', $1, '', 'payment_sent', $2, $3, $4, 0, 1, 'v0.1', 'x') RETURNING amount_wei`,
        ["0x" + "1".repeat(40), max.toString(), "0x" + "2".repeat(40), "0x" + "3".repeat(64)],
      );
      expect(u256FromDb(rows[0].amount_wei)).toBe(max);
      expect(rows[0].amount_wei).toBe(max.toString());
    });
  });
});
