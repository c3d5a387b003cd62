import { readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetDatabase } from "../src/index.ts";
import { createTestDatabase } from "../src/testing.ts";

const migrations = readdirSync(path.resolve(import.meta.dirname, "../../../prisma/migrations"), { withFileTypes: true }).filter((d) => d.isDirectory()).length;

describe("resetDatabase", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it("drops every table and row of the public schema and applies every migration again", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("CREATE TABLE leftover (x int)");
      await client.query(
        `INSERT INTO raw_logs (block_number, block_hash, block_timestamp, tx_hash, tx_index, log_index, address, data)
         VALUES (1, '0x' || repeat('a', 64), now(), '0x' || repeat('b', 64), 0, 0, '0x' || repeat('c', 40), '0x')`,
      );
      await resetDatabase(db.url);
      const tables = (await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((r) => r.table_name);
      expect(tables).not.toContain("leftover");
      expect(tables).toContain("raw_logs");
      expect((await client.query("SELECT count(*)::int AS n FROM raw_logs")).rows[0].n).toBe(0);
      const applied = await client.query("SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL");
      expect(applied.rows[0].n).toBe(migrations);
    } finally {
      await client.end();
    }
  });
});
