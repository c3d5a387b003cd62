import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { loadMatchContext } from "@agent-ledger/db";
import { DEV_PRIVATE_KEYS, PATH_USD, createDevnetClient, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rematch } from "../src/rematch.ts";
import { EXPLORER, indexUntil, loadRegistry } from "./helpers.ts";

// Methodology v0.2 rule 8 on a real devnet behind a loopback proxy that answers block headers like a Tempo node
// (`timestampMillis` = the block's seconds × 1000 + 123): v0.2 rows and stored raw logs keep the milliseconds,
// rematch re-derives them from raw logs; v0.1 rows keep whole seconds.

const AGENT = privateKeyToAccount(DEV_PRIVATE_KEYS[1]).address.toLowerCase();
const SHOP = privateKeyToAccount(DEV_PRIVATE_KEYS[4]).address.toLowerCase();

function startTempoLikeProxy(upstream: string) {
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const answer = (await (await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body })).json()) as unknown;
    type Answer = { result?: { timestamp?: string; timestampMillis?: string } | null };
    const withMillis = (r: Answer) => {
      if (r.result && typeof r.result === "object" && typeof r.result.timestamp === "string" && !Array.isArray(r.result)) {
        r.result.timestampMillis = `0x${(BigInt(r.result.timestamp) * 1000n + 123n).toString(16)}`;
      }
      return r;
    };
    const request = JSON.parse(body) as { method: string } | { method: string }[];
    const isHeader = (m: string) => m === "eth_getBlockByNumber";
    const out = Array.isArray(answer)
      ? answer.map((r: Answer, i) => (isHeader((request as { method: string }[])[i]!.method) ? withMillis(r) : r))
      : isHeader((request as { method: string }).method)
        ? withMillis(answer as Answer)
        : answer;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
  });
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) }),
    ),
  );
}

describe("block time milliseconds (methodology v0.2, rule 8)", () => {
  let anvil: AnvilInstance;
  let proxy: Awaited<ReturnType<typeof startTempoLikeProxy>>;
  const dbs: Awaited<ReturnType<typeof createTestDatabase>>[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = await startTempoLikeProxy(anvil.url);
    const agent = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(DEV_PRIVATE_KEYS[1]) });
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(SHOP), amount: 1_000n, nonceKey: 0n });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([proxy?.close(), anvil?.stop(), ...dbs.map((d) => d.drop())]);
  });

  const registry = {
    registry_version: 2,
    network: "devnet",
    tokens: [{ address: PATH_USD, symbol: "pathUSD", decimals: 6, currency: "USD" }],
    entities: [
      { id: "test-agent", label: "Agent", category: "agent", wallets: [AGENT] },
      { id: "shop-mpp", label: "Shop", category: "commerce", wallets: [SHOP] },
    ],
  };
  const tsOf = async (url: string, sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql)).rows.map((r) => (r.t as Date).getTime());
    } finally {
      await c.end();
    }
  };

  it("v0.2 keeps the node's milliseconds in rows and raw logs, and rematch keeps them; v0.1 keeps seconds", async () => {
    const tip = await createDevnetClient({ url: anvil.url }).getBlockNumber();
    for (const version of ["v0.2", "v0.1"]) {
      const db = await createTestDatabase();
      dbs.push(db);
      await loadRegistry(db.url, registry);
      await indexUntil(db.url, proxy.url, tip, { methodologyVersion: version });
      const rows = await tsOf(db.url, "SELECT ts AS t FROM agent_events ORDER BY id");
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((t) => t % 1000 === (version === "v0.2" ? 123 : 0))).toBe(true);
      if (version !== "v0.2") continue;
      expect((await tsOf(db.url, "SELECT block_timestamp AS t FROM raw_logs")).every((t) => t % 1000 === 123)).toBe(true);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query("DELETE FROM agent_events");
        await rematch(client, { version: "v0.2", maintainRollups: false, context: await loadMatchContext(client, EXPLORER) });
        expect(await tsOf(db.url, "SELECT ts AS t FROM agent_events ORDER BY id")).toEqual(rows);
      } finally {
        await client.end();
      }
    }
  });
});
