import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool, createReadRouting, migrateDeploy, type ReadRouting, type ReadRoutingEvent } from "../src/index.ts";
import { type ReplicaPair, startReplicaPair } from "../src/testing.ts";

const CHECKPOINT =
  "INSERT INTO indexer_checkpoints (id, chain_id, start_block, last_block) VALUES ('s', 1, 0, $1) ON CONFLICT (id) DO UPDATE SET last_block = $1";

describe("createReadRouting (a real primary and streaming replica)", () => {
  let pair: ReplicaPair;
  let primary: pg.Pool;
  let replica: pg.Pool;
  let routing: ReadRouting;
  const events: ReadRoutingEvent[] = [];
  /** Where a read through the routing went, and the checkpoint it saw. */
  const read = async (minBlock: number | null = null) =>
    routing.scope({ minBlock }, async () => {
      const { rows } = await routing.reader.query<{ replica: boolean; block: string }>(
        "SELECT pg_is_in_recovery() AS replica, (SELECT max(last_block) FROM indexer_checkpoints)::text AS block",
      );
      return { on: rows[0]!.replica ? "replica" : "primary", block: Number(rows[0]!.block) };
    });
  const setBlock = (block: number) => primary.query(CHECKPOINT, [block]);

  beforeAll(async () => {
    pair = await startReplicaPair({ prepare: (url) => migrateDeploy(url, { quiet: true }) });
    primary = createPgPool(pair.primaryUrl, { max: 4 });
    replica = createPgPool(pair.replicaUrl, { max: 4 });
    replica.on("error", () => undefined); // idle connections die when the replica is stopped
    routing = createReadRouting({ primary, replicas: [{ name: "r1", pool: replica }], maxLagBlocks: 5, checkIntervalMs: 60_000, log: (e) => events.push(e) });
    await setBlock(100);
    await pair.waitForReplay();
  }, 120_000);
  afterAll(async () => {
    routing?.stop();
    await primary?.end();
    await replica?.end();
    await pair?.stop();
  });

  it("reads on the replica once a probe finds it caught up; until then on the primary", async () => {
    expect(await read()).toEqual({ on: "primary", block: 100 }); // never probed
    await routing.check();
    expect(await read()).toEqual({ on: "replica", block: 100 });
    const s = routing.status();
    expect(s.current).toBe("r1");
    expect(s.sources.find((x) => x.name === "r1")).toMatchObject({ up: true, eligible: true, block: 100, lagBlocks: 0, lagSeconds: 0, lagBytes: 0 });
    expect(events).toContainEqual({ source: "r1", change: "eligible" });
  });

  it("reads a paused replica within the lag bound, and the primary beyond it, then the replica again", async () => {
    await pair.pauseReplay();
    try {
      await setBlock(103);
      await routing.check();
      expect(await read()).toEqual({ on: "replica", block: 100 }); // 3 behind ≤ 5: stale but allowed
      await setBlock(110);
      await routing.check();
      expect(routing.status().sources[1]).toMatchObject({ eligible: false, lagBlocks: 10 });
      expect(await read()).toEqual({ on: "primary", block: 110 });
    } finally {
      await pair.resumeReplay();
    }
    await pair.waitForReplay();
    await routing.check();
    // The primary served last: the switch back waits until the replica has replayed what the primary had then.
    expect(await read()).toEqual({ on: "replica", block: 110 });
  });

  it("never goes back: after serving the primary's newer state it does not read a replica within the bound but older", async () => {
    await pair.pauseReplay();
    try {
      await setBlock(112);
      await routing.check();
      expect(await read()).toEqual({ on: "replica", block: 110 }); // 2 behind: within the bound
      // A client that saw block 112 elsewhere asks for it: the replica cannot, the primary answers.
      expect(await read(112)).toEqual({ on: "primary", block: 112 });
      // The replica is still within the bound, but this process has now shown block 112: the lag bound alone would go back.
      for (let i = 0; i < 5; i++) expect((await read()).block).toBe(112);
      await routing.check();
      expect(routing.status().sources[1]).toMatchObject({ eligible: false, reason: "older than what this process already served" });
      expect(await read()).toEqual({ on: "primary", block: 112 });
      expect(await routing.servedBlock()).toBe(112);
    } finally {
      await pair.resumeReplay();
    }
    await pair.waitForReplay();
    await routing.check();
    expect(await read()).toEqual({ on: "replica", block: 112 });
  });

  it("a random walk of writes, pauses, hints and probes never shows a smaller block than one already shown", async () => {
    let shown = 0;
    let block = 112;
    let paused = false;
    try {
      for (let i = 0; i < 60; i++) {
        const r = Math.random();
        if (r < 0.3) await setBlock(++block);
        else if (r < 0.4) {
          if (paused) await pair.resumeReplay();
          else await pair.pauseReplay();
          paused = !paused;
        } else if (r < 0.55) await routing.check();
        const seen = await read(Math.random() < 0.2 ? block : null);
        expect(seen.block).toBeGreaterThanOrEqual(shown);
        shown = seen.block;
        expect(await routing.servedBlock()).toBeGreaterThanOrEqual(shown);
      }
    } finally {
      if (paused) await pair.resumeReplay();
    }
  });

  it("servedBlock bounds an answer's reads even while other reads keep the same replica busy", async () => {
    await setBlock(200);
    await pair.waitForReplay();
    await routing.check();
    expect((await read()).on).toBe("replica");
    await routing.check();
    const slow = routing.scope({}, () => routing.reader.query("SELECT pg_sleep(1.5)")); // another request, still running
    await new Promise((r) => setTimeout(r, 100));
    await setBlock(201);
    await pair.waitForReplay();
    const seen = await read();
    expect(seen).toEqual({ on: "replica", block: 201 });
    const started = Date.now();
    expect(await routing.servedBlock()).toBeGreaterThanOrEqual(201);
    expect(Date.now() - started).toBeLessThan(1_000); // did not wait for the slow read
    await slow;
  });

  it("a stopped replica: no failed read (the primary answers), reported down, read again once it is back", async () => {
    await pair.waitForReplay();
    await routing.check();
    expect((await read()).on).toBe("replica");
    await pair.stopReplica();
    try {
      for (let i = 0; i < 3; i++) expect((await read()).on).toBe("primary");
      const r1 = routing.status().sources[1]!;
      expect(r1).toMatchObject({ up: false, eligible: false, reason: "down" });
      expect(r1.fallbacks).toBe(1);
      await routing.check();
      expect(routing.status().sources[1]).toMatchObject({ up: false, eligible: false, reason: "down" });
      expect(events).toContainEqual(expect.objectContaining({ source: "r1", change: "down" }));
    } finally {
      await pair.startReplica();
    }
    await pair.waitForReplay();
    await routing.check();
    expect((await read()).on).toBe("replica");
    expect(events).toContainEqual({ source: "r1", change: "up" });
  });

  it("a SQL error of the read itself is not retried on the primary", async () => {
    await expect(routing.scope({}, () => routing.reader.query("SELECT 1/0"))).rejects.toThrow(/division by zero/);
    expect(routing.status().sources[1]).toMatchObject({ up: true });
  });
});
