import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDeploy } from "../src/index.ts";
import { type ReplicaPair, startReplicaPair } from "../src/testing.ts";

async function one(url: string, sql: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0];
  } finally {
    await client.end();
  }
}

describe("startReplicaPair (a real streaming replica of a throwaway primary)", () => {
  let pair: ReplicaPair;
  beforeAll(async () => {
    pair = await startReplicaPair({ prepare: (url) => migrateDeploy(url, { quiet: true }) });
  }, 120_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it("replicates the migrated schema and later writes, and refuses writes on the replica", async () => {
    expect(await one(pair.replicaUrl, "SELECT pg_is_in_recovery() AS r")).toEqual({ r: true });
    await one(pair.primaryUrl, "INSERT INTO indexer_checkpoints (id, chain_id, start_block, last_block) VALUES ('t', 1, 0, 42) RETURNING id");
    await pair.waitForReplay();
    expect(await one(pair.replicaUrl, "SELECT last_block FROM indexer_checkpoints WHERE id = 't'")).toEqual({ last_block: "42" });
    await expect(one(pair.replicaUrl, "DELETE FROM indexer_checkpoints")).rejects.toThrow(/read-only transaction/);
  });

  it("holds back writes while replay is paused and catches up after resume", async () => {
    await pair.pauseReplay();
    await one(pair.primaryUrl, "UPDATE indexer_checkpoints SET last_block = 43 WHERE id = 't' RETURNING id");
    await new Promise((r) => setTimeout(r, 300));
    expect(await one(pair.replicaUrl, "SELECT last_block FROM indexer_checkpoints WHERE id = 't'")).toEqual({ last_block: "42" });
    await pair.resumeReplay();
    await pair.waitForReplay();
    expect(await one(pair.replicaUrl, "SELECT last_block FROM indexer_checkpoints WHERE id = 't'")).toEqual({ last_block: "43" });
  });

  it("stops and starts the replica; stop() leaves no server and no folder behind", async () => {
    await pair.stopReplica();
    await expect(one(pair.replicaUrl, "SELECT 1")).rejects.toThrow();
    await pair.startReplica();
    expect(await one(pair.replicaUrl, "SELECT 1 AS one")).toEqual({ one: 1 });
    const dir = pair.dir;
    await pair.stop();
    expect(existsSync(dir)).toBe(false);
    const left = execFileSync("ps", ["-eo", "args"])
      .toString()
      .split("\n")
      .filter((l) => l.includes(dir));
    expect(left).toEqual([]);
  });
});
