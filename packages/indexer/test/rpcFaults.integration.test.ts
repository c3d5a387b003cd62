import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { DEV_PRIVATE_KEYS, createDevnetClient, sendBulkTransfers, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { pino } from "pino";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexUntil, loadRegistry } from "./helpers.ts";

// A real node behind a real HTTP proxy that behaves like hosted RPC providers do: it refuses
// eth_getLogs ranges wider than MAX_RANGE blocks, and it has outages (HTTP 503, dropped connections).
// The indexer must shrink its ranges, retry, skip nothing, and end with the same ledger.

const MAX_RANGE = 3n;
const senders = DEV_PRIVATE_KEYS.slice(1, 3);
const recipients = DEV_PRIVATE_KEYS.slice(3, 5).map((k) => privateKeyToAccount(k).address.toLowerCase() as `0x${string}`);

function startFaultyProxy(upstream: string) {
  const stats = { refusedRanges: 0, outages: 0, getLogs: 0 };
  let requests = 0;
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    requests++;
    if (requests % 7 === 3) {
      stats.outages++;
      if (requests % 2) return res.destroy(); // connection reset
      res.writeHead(503).end("upstream unavailable");
      return;
    }
    const call = JSON.parse(body);
    if (call.method === "eth_getLogs") {
      stats.getLogs++;
      const { fromBlock, toBlock } = call.params[0];
      if (BigInt(toBlock) - BigInt(fromBlock) + 1n > MAX_RANGE) {
        stats.refusedRanges++;
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: -32005, message: `query exceeds max block range ${MAX_RANGE}` } }));
      }
    }
    const upstreamRes = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
    res.writeHead(upstreamRes.status, { "content-type": "application/json" });
    res.end(await upstreamRes.text());
  });
  return new Promise<{ url: string; stats: typeof stats; close: () => Promise<void> }>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        stats,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

async function rows(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query("SELECT agent_id, kind, amount_wei::text, tx_hash, log_index FROM agent_events ORDER BY tx_hash, log_index, agent_id")).rows;
  } finally {
    await c.end();
  }
}

describe("indexer against an unreliable, range-limited RPC", () => {
  let anvil: AnvilInstance;
  let direct: Awaited<ReturnType<typeof createTestDatabase>>;
  let viaProxy: Awaited<ReturnType<typeof createTestDatabase>>;
  let ahead: Awaited<ReturnType<typeof createTestDatabase>>;
  const registry = {
    registry_version: 1,
    network: "devnet",
    entities: [
      ...senders.map((k, i) => ({ id: `s-${i}`, label: `S${i}`, category: "agent", wallets: [privateKeyToAccount(k).address.toLowerCase()] })),
      ...recipients.map((a, i) => ({ id: `r-${i}-mpp`, label: `R${i}`, category: "service", wallets: [a] })),
    ],
  };

  beforeAll(async () => {
    [anvil, direct, viaProxy, ahead] = await Promise.all([startAnvil(), createTestDatabase(), createTestDatabase(), createTestDatabase()]);
    for (let i = 0; i < 20; i++) await sendBulkTransfers({ rpcUrl: anvil.url, count: 2, senders, recipients, withMemo: i % 2 === 0, batchSize: 2 });
    await Promise.all([loadRegistry(direct.url, registry), loadRegistry(viaProxy.url, registry), loadRegistry(ahead.url, registry)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([anvil?.stop(), direct?.drop(), viaProxy?.drop(), ahead?.drop()]);
  });

  it("shrinks refused ranges, retries outages, and skips nothing", async () => {
    const head = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    const proxy = await startFaultyProxy(anvil.url);
    const messages: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => messages.push(JSON.parse(line).msg) });
    try {
      await indexUntil(viaProxy.url, proxy.url, head, { chunk: { initial: 50, min: 1, max: 50 }, log });
    } finally {
      await proxy.close();
    }
    await indexUntil(direct.url, anvil.url, head);
    const [got, want] = await Promise.all([rows(viaProxy.url), rows(direct.url)]);
    expect(want.length).toBeGreaterThanOrEqual(80);
    expect(got).toEqual(want);
    expect(proxy.stats.refusedRanges).toBeGreaterThan(0);
    expect(proxy.stats.outages).toBeGreaterThan(0);
    expect(messages).toContain("range refused by the node; shrinking");
    expect(messages.some((m) => m.endsWith("failed; retrying") || m === "eth_getLogs failed; retrying the same range")).toBe(true);
  }, 120_000);

  it("ranges requested ahead and then refused are split and still written whole, consecutively", async () => {
    // Three 8-block ranges are requested before the node's refusal shrinks the range size: each is fetched in pieces
    // of at most MAX_RANGE blocks and still becomes one batch; the batches tile [0, head] with no gap or overlap.
    const head = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    const proxy = await startFaultyProxy(anvil.url);
    const batches: [bigint, bigint][] = [];
    try {
      await indexUntil(ahead.url, proxy.url, head, {
        chunk: { initial: 8, min: 1, max: 8 },
        fetchAhead: 3,
        onBatch: (b) => batches.push([b.fromBlock, b.toBlock]),
      });
    } finally {
      await proxy.close();
    }
    if ((await rows(direct.url)).length === 0) await indexUntil(direct.url, anvil.url, head);
    expect(await rows(ahead.url)).toEqual(await rows(direct.url));
    expect(proxy.stats.refusedRanges).toBeGreaterThan(0);
    expect(batches[0]![0]).toBe(0n);
    expect(batches.at(-1)![1]).toBe(head);
    for (let i = 1; i < batches.length; i++) expect(batches[i]![0]).toBe(batches[i - 1]![1] + 1n);
    const firstThree = batches.slice(0, 3);
    expect(firstThree.map(([from, to]) => to - from + 1n)).toEqual(firstThree.map(([from]) => (from + 7n <= head ? 8n : head - from + 1n)));
    expect(firstThree[0]![1] - firstThree[0]![0] + 1n).toBeGreaterThan(MAX_RANGE);
  }, 120_000);
});
