import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findNewestRawLog } from "../src/store/findNewestRawLog.ts";

// The newest stored raw log below a checkpoint, found through the BRIN on block_number (windows widening ×10 below the
// checkpoint, then unbounded), against real PostgreSQL.

const hash = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;

describe("findNewestRawLog", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  const insert = async (...blocks: bigint[]) => {
    for (const [i, b] of blocks.entries()) {
      await client.query(
        `INSERT INTO raw_logs (block_number, block_hash, block_timestamp, tx_hash, tx_index, log_index, address, data)
         VALUES ($1, $2, now(), $3, 0, $4, '0x20c0000000000000000000000000000000000000', '0x')`,
        [b.toString(), hash(b), hash(1_000_000_000n + b), i],
      );
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  beforeEach(async () => {
    await client.query("TRUNCATE raw_logs");
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it("is null for an empty table, and for logs only above the checkpoint", async () => {
    expect(await findNewestRawLog(client, 5_000n)).toBeNull();
    expect(await findNewestRawLog(client, null)).toBeNull();
    await insert(6_000n);
    expect(await findNewestRawLog(client, 5_000n)).toBeNull();
  });

  it("finds the newest log at or below the checkpoint, near it and far below it", async () => {
    await insert(3n, 70n, 5_000n, 5_001n);
    expect(await findNewestRawLog(client, 5_000n)).toEqual({ blockNumber: 5_000n, blockHash: hash(5_000n) });
    expect(await findNewestRawLog(client, 4_999n)).toEqual({ blockNumber: 70n, blockHash: hash(70n) });
    expect(await findNewestRawLog(client, 69n)).toEqual({ blockNumber: 3n, blockHash: hash(3n) });
    expect(await findNewestRawLog(client, 2n)).toBeNull();
    expect(await findNewestRawLog(client, null)).toEqual({ blockNumber: 5_001n, blockHash: hash(5_001n) }); // no checkpoint: the newest of all
  });

  it("reaches past every window: a log 50 M blocks below the checkpoint", async () => {
    await insert(1_000_000n);
    expect(await findNewestRawLog(client, 51_000_000n)).toEqual({ blockNumber: 1_000_000n, blockHash: hash(1_000_000n) });
    // each window's edge: just inside the 10k window, and just outside it (found by the 100k one)
    await insert(51_000_000n - 9_999n, 40_000_000n);
    expect(await findNewestRawLog(client, 51_000_000n)).toEqual({ blockNumber: 50_990_001n, blockHash: hash(50_990_001n) });
    expect(await findNewestRawLog(client, 50_990_000n)).toEqual({ blockNumber: 40_000_000n, blockHash: hash(40_000_000n) });
  });

  it("uses the BRIN for a window (no sequential scan of raw_logs)", async () => {
    await client.query("SET enable_seqscan = off"); // small test table: make the planner show what it can use
    try {
      const { rows } = await client.query(
        "EXPLAIN SELECT block_number::text AS n, block_hash FROM raw_logs WHERE block_number <= 100 AND block_number >= 0 ORDER BY block_number DESC LIMIT 1",
      );
      expect(rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("raw_logs_block_number_idx");
    } finally {
      await client.query("RESET enable_seqscan");
    }
  });
});
