import { createPgPool, migrateDeploy } from "@agent-ledger/db";
import { type ReplicaPair, startReplicaPair } from "@agent-ledger/db/testing";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openEventSource, type SseCollector } from "./support/feedClients.ts";
import { until } from "./support/feedLedger.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// Public reads on a real streaming replica (docs/operations.md, "Read replicas"): the read services go to the replica,
// writes and the feed stay on the primary, a lagging or stopped replica is routed around without a failed request,
// and a reader never sees a row disappear (per process, and across processes with X-Ledger-Min-Block).

const MAX_LAG = 5;

let pair: ReplicaPair;
let primary: pg.Pool;
let replicaPool: pg.Pool;
let t: TestApp;
let block = 0;
const clients: SseCollector[] = [];

/** One indexer-like batch on the primary: a row at the next block, the checkpoint moved to it, NOTIFY — one transaction. */
async function commitRow(): Promise<{ id: string; block: number }> {
  const b = ++block;
  const client = await primary.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query(
      `INSERT INTO agent_events (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, kind, amount_wei, token_address,
                                 tx_hash, log_index, source_block, methodology_version, explorer_url)
       VALUES (now(), 'agent-1', 'A', 'agent', '0x00000000000000000000000000000000000000aa', '', 'payment_sent', 1000, '0x20c0000000000000000000000000000000000000',
               '0x' || lpad(to_hex($1::int), 64, '0'), 0, $1, 'v0.1', 'x') RETURNING id::text`,
      [b],
    );
    await client.query(
      `INSERT INTO indexer_checkpoints (id, chain_id, start_block, last_block) VALUES ('tempo-1', 1, 0, $1)
       ON CONFLICT (id) DO UPDATE SET last_block = $1, updated_at = now()`,
      [b],
    );
    await client.query("SELECT pg_notify('agent_events', $1)", [rows[0].id]);
    await client.query("COMMIT");
    return { id: rows[0].id as string, block: b };
  } finally {
    client.release();
  }
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });
const routing = () => t.app.readRouting!;
const replicaStatus = () =>
  routing()
    .status()
    .sources.find((s) => s.name === "replica1")!;
/** Probes now (the app also does every 100 ms) and waits until new requests go to the replica. */
async function onReplica(): Promise<void> {
  await pair.waitForReplay();
  await until(async () => {
    await routing().check();
    const { rows } = await replicaPool.query("SELECT 1");
    return rows.length === 1 && replicaStatus().eligible && (await get(`/api/events/${last.id}`)).status === 200 && routing().status().current === "replica1";
  }, "reads back on the replica");
}
let last: { id: string; block: number };

beforeAll(async () => {
  pair = await startReplicaPair({ prepare: (url) => migrateDeploy(url, { quiet: true }) });
  primary = createPgPool(pair.primaryUrl, { max: 4 });
  replicaPool = createPgPool(pair.replicaUrl, { max: 5, applicationName: "agent-ledger-api-read", connectionTimeoutMillis: 2_000 });
  replicaPool.on("error", () => undefined); // idle connections die when the replica is stopped
  last = await commitRow();
  t = await startTestApp(pair.primaryUrl, {
    readPools: [{ name: "replica1", pool: replicaPool }],
    readRouting: { maxLagBlocks: MAX_LAG, checkIntervalMs: 100 },
    feed: { enabled: true, heartbeatMs: 50, pollMs: 60_000, retryMs: 100 },
  });
  await onReplica();
}, 120_000);

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await pair.resumeReplay().catch(() => undefined);
});

afterAll(async () => {
  await t?.close();
  await replicaPool?.end();
  await primary?.end();
  await pair?.stop();
});

describe("read replicas", () => {
  it("public reads go to the replica: a row committed while replay is paused (within the bound) is not there yet", async () => {
    await pair.pauseReplay();
    const row = await commitRow(); // 1 block behind: within the bound, so the replica is still read
    await routing().check();
    expect(replicaStatus()).toMatchObject({ up: true, eligible: true, lagBlocks: 1 });
    expect((await get(`/api/events/${row.id}`)).status).toBe(404);
    const plain = await get(`/api/events/${last.id}`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("x-ledger-block")).toBeNull(); // named only when asked (X-Ledger-Min-Block, even 0)
    expect(plain.headers.get("vary")).toBe("x-ledger-min-block");
    const seen = await get(`/api/events/${last.id}`, { "x-ledger-min-block": "0" });
    expect(seen.status).toBe(200);
    expect(seen.headers.get("x-ledger-block")).toBe(String(last.block)); // what the replica had: the row before
    expect(seen.headers.get("vary")).toBe("x-ledger-min-block"); // a CDN keys hinted answers apart (docs/api.md, Caching)
    expect(seen.headers.get("etag")).toMatch(/^"/); // the validator and the block header travel together
    // GraphQL without credentials too (the direct lane), with the same header.
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-ledger-min-block": "0" },
      body: JSON.stringify({ query: "query($id: ID!) { event(id: $id) { id } }", variables: { id: row.id } }),
    });
    expect(((await gql.json()) as { data: { event: unknown } }).data.event).toBeNull();
    expect(gql.headers.get("x-ledger-block")).toBe(String(last.block));
    // The replica's connections are the read pool's.
    const { rows } = await replicaPool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'agent-ledger-api-read'");
    expect(rows[0].n).toBeGreaterThan(0);
    await pair.resumeReplay();
    last = row;
    await onReplica();
  });

  it("writes and read-your-writes (the wallet) stay on the primary while the replica is paused", async () => {
    await pair.pauseReplay();
    const start = await fetch(`${t.url}/api/wallet/device/start`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(start.status).toBe(200); // a write on the replica would fail: read-only transaction
    const { device_id } = (await start.json()) as { device_id: string };
    const poll = await get(`/api/wallet/device/poll?device_id=${device_id}`);
    expect(await poll.json()).toEqual({ status: "pending" }); // read back at once: not from the paused replica
    expect(poll.headers.get("x-ledger-block")).toBeNull(); // not a public read
  });

  it("never goes back: after X-Ledger-Min-Block sends a read to the primary, the same process does not read the older replica", async () => {
    await pair.pauseReplay();
    const row = await commitRow();
    await routing().check();
    expect(replicaStatus()).toMatchObject({ eligible: true, lagBlocks: 1 });
    // A client that saw this block on another API process says so: the replica cannot answer it, the primary does.
    // Asked at once with and without the hint, the two identical reads are not coalesced into the replica's answer.
    const [plain, hinted] = await Promise.all([get(`/api/events/${row.id}`), get(`/api/events/${row.id}`, { "x-ledger-min-block": String(row.block) })]);
    expect(plain.status).toBe(404);
    expect(hinted.status).toBe(200);
    expect(Number(hinted.headers.get("x-ledger-block"))).toBeGreaterThanOrEqual(row.block);
    // Without a hint now: the replica is within the lag bound, but older than what this process has shown.
    for (let i = 0; i < 5; i++) {
      const again = await get(`/api/events/${row.id}`);
      expect(again.status).toBe(200); // the row it was shown is still there
      expect(again.headers.get("x-ledger-block")).toBeNull();
    }
    await routing().check();
    expect(replicaStatus()).toMatchObject({ eligible: false, reason: "older than what this process already served" });
    // A second API process on the same replica, asked with the first one's header, does not go back either.
    const other = await startTestApp(pair.primaryUrl, { readPools: [{ name: "replica1", pool: replicaPool }], readRouting: { maxLagBlocks: MAX_LAG } });
    try {
      await other.app.readRouting!.check();
      expect((await fetch(`${other.url}/api/events/${row.id}`)).status).toBe(404); // no hint: the replica (stale, in bound)
      const withHint = await fetch(`${other.url}/api/events/${row.id}`, { headers: { "x-ledger-min-block": hinted.headers.get("x-ledger-block")! } });
      expect(withHint.status).toBe(200);
      // A malformed hint is no hint (never an error).
      expect((await fetch(`${other.url}/api/events/${last.id}`, { headers: { "x-ledger-min-block": "soon" } })).status).toBe(200);
    } finally {
      await other.close();
    }
    await pair.resumeReplay();
    last = row;
    await onReplica();
  });

  it("a replica lagging beyond the bound is not read; /readyz stays ready and reports it, /metrics too", async () => {
    await pair.pauseReplay();
    let row = last;
    for (let i = 0; i <= MAX_LAG; i++) row = await commitRow();
    await routing().check();
    expect(replicaStatus()).toMatchObject({ up: true, eligible: false, lagBlocks: MAX_LAG + 1 });
    expect((await get(`/api/events/${row.id}`)).status).toBe(200); // the primary
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { replicas: { current: string; sources: { name: string; up: boolean; lagBlocks: number; reason: string }[] } };
    expect(body.replicas.current).toBe("primary");
    expect(body.replicas.sources[1]).toMatchObject({ name: "replica1", up: true, lagBlocks: MAX_LAG + 1 });
    expect(body.replicas.sources[1]!.reason).toMatch(/blocks behind the primary/);
    const metrics = await (await get("/metrics")).text();
    expect(metrics).toContain('agent_ledger_read_replica_up{replica="replica1"} 1');
    expect(metrics).toContain(`agent_ledger_read_replica_lag_blocks{replica="replica1"} ${MAX_LAG + 1}`);
    expect(metrics).toContain('agent_ledger_read_replica_eligible{replica="replica1"} 0');
    expect(metrics).toMatch(/agent_ledger_reads_routed_total\{target="replica1"\} [1-9]/);
    expect(metrics).toMatch(/agent_ledger_read_replica_lag_seconds\{replica="replica1"\} [0-9.]+/);
    await pair.resumeReplay();
    last = row;
    await onReplica();
  });

  it("a stopped replica is routed around with no failed public request, reported down, and read again once back", async () => {
    const before = replicaStatus().reads;
    let stop = false;
    const statuses: number[] = [];
    const load = (async () => {
      while (!stop) statuses.push((await get(`/api/events/${last.id}`)).status);
    })();
    await until(() => replicaStatus().reads > before, "reads on the replica");
    const stoppedAt = Date.now();
    await pair.stopReplica();
    try {
      await until(() => !replicaStatus().up, "the replica reported down", 5_000);
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
      const ready = await get("/readyz");
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { replicas: { sources: { up: boolean }[] } }).replicas.sources[1]!.up).toBe(false);
      expect(await (await get("/metrics")).text()).toContain('agent_ledger_read_replica_up{replica="replica1"} 0');
      const n = statuses.length;
      await until(() => statuses.length > n + 10, "reads while the replica is down");
    } finally {
      await pair.startReplica();
    }
    await onReplica();
    stop = true;
    await load;
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it("the feed stays on the primary: SSE delivers rows and resumes without a gap while the replica is paused", async () => {
    await pair.pauseReplay();
    const first = openEventSource(`${t.url}/api/feed`);
    clients.push(first);
    await until(() => first.ready.length, "subscribed");
    const live = [await commitRow(), await commitRow()];
    await until(() => first.rows.length >= 2, "live rows while replay is paused");
    expect(first.ids()).toEqual(live.map((r) => Number(r.id)));
    first.close();
    // Rows committed while the client is away; it resumes from its last id on the same process.
    const missed = [await commitRow(), await commitRow(), await commitRow()];
    const resumed = openEventSource(`${t.url}/api/feed`, first.rowEventIds.at(-1));
    clients.push(resumed);
    await until(() => resumed.rows.length >= 3, "resumed rows");
    expect(resumed.ids()).toEqual(missed.map((r) => Number(r.id)));
    // Meanwhile the public reads did not see them: they went to the paused replica... until it fell beyond the bound.
    expect(replicaStatus().block).toBeLessThan(missed.at(-1)!.block);
    await pair.resumeReplay();
    last = missed.at(-1)!;
    await onReplica();
  });
});
