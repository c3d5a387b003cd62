import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, migrateDeploy, u256FromDb } from "../src/index.ts";
import { createTestDatabase } from "../src/testing.ts";

const run = promisify(execFile);
const prismaDir = path.resolve(import.meta.dirname, "..");

describe("migrations", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it("deploy is idempotent and status reports the schema up to date", async () => {
    await migrateDeploy(db.url, { quiet: true });
    const { stdout } = await run("npx", ["prisma", "migrate", "status"], { cwd: prismaDir, env: { ...process.env, DATABASE_URL: db.url } });
    expect(stdout).toMatch(/Database schema is up to date/);
  });

  it("schema.prisma and the migrations agree (drift check exits 0)", async () => {
    const { stdout } = await run("npx", ["prisma", "migrate", "diff", "--from-migrations", "migrations", "--to-schema", "schema.prisma", "--exit-code"], {
      cwd: prismaDir,
      env: { ...process.env, DATABASE_URL: db.url },
    });
    expect(stdout).toMatch(/No difference detected/);
  });

  it("transaction hashes of raw_logs and agent_events compare byte by byte (COLLATE \"C\", set by migration only)", async () => {
    await migrateDeploy(db.url, { quiet: true });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT table_name, collation_name FROM information_schema.columns
         WHERE table_schema = 'public' AND column_name = 'tx_hash' AND table_name IN ('raw_logs', 'agent_events') ORDER BY table_name`,
      );
      expect(rows).toEqual([{ table_name: "agent_events", collation_name: "C" }, { table_name: "raw_logs", collation_name: "C" }]);
      // Lookups by a text parameter and joins with parameter arrays (rematch, search) still work on the C column.
      const found = await client.query("SELECT count(*)::int AS n FROM agent_events WHERE tx_hash = ANY($1::text[])", [["0x" + "3".repeat(64)]]);
      expect(found.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it("stores a uint256 above 2^255 exactly in NUMERIC(78,0)", async () => {
    const prisma = createPrisma(db.url);
    const max = 2n ** 256n - 1n;
    try {
      await prisma.entity.create({ data: { id: "e1", label: "E", category: "agent", kind: "agent", source: "test" } });
      const row = await prisma.agentEvent.create({
        data: {
          ts: new Date(), agentId: "e1", agentLabel: "E", agentCategory: "agent", counterpartyAddress: "0x" + "1".repeat(40),
          counterpartyLabel: "", kind: "payment_sent", amountWei: max.toString(), tokenAddress: "0x" + "2".repeat(40),
          txHash: "0x" + "3".repeat(64), logIndex: 0, sourceBlock: 1n, methodologyVersion: "v0.1", explorerUrl: "x",
        },
      });
      expect(u256FromDb(row.amountWei)).toBe(max);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query("SELECT amount_wei FROM agent_events");
      await client.end();
      expect(rows[0].amount_wei).toBe(max.toString());
    } finally {
      await prisma.$disconnect();
    }
  });
});
