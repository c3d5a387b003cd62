import { existsSync } from "node:fs";
import path from "node:path";
import { type ReplicaPair, startReplicaPair } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPostgresCpuSeconds } from "../bench/readPostgresCpuSeconds.ts";

// bench:api's replica mode reports each PostgreSQL server's CPU during a run from /proc. A private server (the primary
// of a throwaway pair) so that no other test's backend adds to what is measured.

const HEAVY = "SELECT count(*) FROM generate_series(1, 4000000)";

describe("readPostgresCpuSeconds (a real PostgreSQL server's CPU from /proc)", () => {
  let pair: ReplicaPair;
  let dataDir: string;
  beforeAll(async () => {
    pair = await startReplicaPair();
    dataDir = path.join(pair.dir, "primary");
  }, 120_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it("counts a running backend's CPU", async () => {
    const client = new pg.Client({ connectionString: pair.primaryUrl });
    await client.connect();
    try {
      const before = readPostgresCpuSeconds(dataDir);
      const started = process.hrtime.bigint();
      await client.query(HEAVY);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = readPostgresCpuSeconds(dataDir) - before;
      expect(used).toBeGreaterThan(0.05);
      expect(used).toBeLessThan(wallSeconds + 0.5); // one backend, one core at most (plus background processes)
    } finally {
      await client.end();
    }
  });

  it("keeps counting a backend's CPU after the backend has exited", async () => {
    const before = readPostgresCpuSeconds(dataDir);
    const client = new pg.Client({ connectionString: pair.primaryUrl });
    await client.connect();
    const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
    await client.query(HEAVY);
    await client.end();
    const deadline = Date.now() + 10_000;
    while (existsSync(`/proc/${pid}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(readPostgresCpuSeconds(dataDir) - before).toBeGreaterThan(0.05);
  });

  it("fails, naming the folder, when no server runs there", () => {
    expect(() => readPostgresCpuSeconds(path.join(pair.dir, "nowhere"))).toThrow(/nowhere/);
  });
});
