import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertCallbackAllowed, type ResolveHost } from "@agent-ledger/runtime";
import type { RunningWorker } from "../src/startWorker.ts";
import {
  createEventSeeder,
  createOwner,
  createSubscription,
  deletePrefixKeys,
  deliveryRows,
  randomAddress,
  setupDb,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type TestDb,
} from "./helpers.ts";

// A fake DNS: names the tests use, and a name that answers public first and loopback afterwards (rebinding).
function fakeDns(): ResolveHost & { calls: string[] } {
  let rebindCalls = 0;
  const calls: string[] = [];
  const table: Record<string, string[]> = {
    "public.example": ["93.184.216.34"],
    "public6.example": ["2606:4700:4700::1111"],
    "internal.example": ["10.0.0.5"],
    "loopback.example": ["127.0.0.1"],
    "metadata.example": ["169.254.169.254"],
    "mixed.example": ["93.184.216.34", "192.168.0.10"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "translated.example": ["::ffff:0:7f00:1"], // IPv4-translated loopback (RFC 6145)
    "nat64.example": ["64:ff9b::808:808", "64:ff9b::a9fe:a9fe"], // DNS64: a public and the metadata address
    "teredo.example": ["2606:4700:4700::1111", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  };
  const resolve = (async (hostname: string) => {
    calls.push(hostname);
    if (hostname === "rebind.example") return [{ address: rebindCalls++ === 0 ? "93.184.216.34" : "127.0.0.1" }];
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address }));
  }) as ResolveHost & { calls: string[] };
  resolve.calls = calls;
  return resolve;
}

describe("SSRF policy at delivery time (production): refused before any connection", () => {
  let db: TestDb;
  let server: net.Server;
  let port: number;
  let connections = 0;
  let production: RunningWorker;
  const prefix = uniquePrefix("ssrf");
  const dns = fakeDns();

  beforeAll(async () => {
    db = await setupDb();
    // A plain TCP listener on loopback: it only counts connections (no TLS needed to prove none is made).
    server = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as net.AddressInfo).port;
    production = await startTestWorker(db, { prefix, production: true, resolveHost: dns, timeoutMs: 1_000 });
  });
  afterAll(async () => {
    await production?.stop(1_000);
    await new Promise((r) => server.close(r));
    await deletePrefixKeys(prefix);
    await db?.drop();
  });

  it("every forbidden destination ends retrying with a callback_forbidden error, and the listener saw no connection", async () => {
    const owner = await createOwner(db.pool);
    // The rebinding name passes the create-time check, then resolves to loopback when the worker connects.
    await expect(assertCallbackAllowed(`https://rebind.example:${port}/`, { production: true, lookup: dns })).resolves.toBeTruthy();
    const urls = [
      `https://127.0.0.1:${port}/`,
      `https://[::1]:${port}/`,
      `https://10.0.0.1:${port}/`,
      `https://172.16.5.5:${port}/`,
      `https://192.168.0.1:${port}/`,
      `https://169.254.169.254:${port}/latest/meta-data`,
      `https://[::ffff:127.0.0.1]:${port}/`,
      `https://[::ffff:0:7f00:1]:${port}/`,
      `https://translated.example:${port}/`,
      `https://nat64.example:${port}/`,
      `https://loopback.example:${port}/`,
      `https://internal.example:${port}/`,
      `https://rebind.example:${port}/`,
      `http://public.example:${port}/`,
    ];
    const agents = urls.map((_, i) => ({ id: `ssrf-${i}`, wallet: randomAddress() }));
    const subs: { id: string }[] = [];
    for (const [i, url] of urls.entries()) subs.push(await createSubscription(db.pool, { owner, callbackUrl: url, agentId: agents[i]!.id }));
    await createEventSeeder(db.pool, agents).insert(agents.map((a) => ({ from: a.wallet, to: randomAddress(), amount: 1n })));
    for (const [i, sub] of subs.entries()) {
      const [d] = await waitFor(
        async () => {
          const rows = await deliveryRows(db.pool, sub.id);
          return rows[0]?.attempts === 1 && rows[0].status === "retrying" ? rows : null;
        },
        { what: `refusal of ${urls[i]}` },
      );
      expect(d!.last_error, urls[i]).toMatch(/^callback_forbidden/);
      expect(d!.last_http_status).toBeNull();
    }
    expect(connections).toBe(0);
  });

  it("positive control: the same receiver through a non-production worker is reached", async () => {
    const owner = await createOwner(db.pool);
    const devPrefix = uniquePrefix("ssrf-dev");
    const dev = await startTestWorker(db, {
      prefix: devPrefix,
      production: false,
      resolveHost: dns,
      timeoutMs: 500,
      dispatch: { cursorId: "ssrf-dev", pollMs: 100 },
    });
    try {
      await dev.dispatcher!.idle();
      const agent = { id: "ssrf-dev", wallet: randomAddress() };
      await createSubscription(db.pool, { owner, callbackUrl: `http://loopback.example:${port}/`, agentId: agent.id });
      await production.stop(1_000); // only the dev worker picks this one up
      await createEventSeeder(db.pool, [agent]).insert([{ from: agent.wallet, to: randomAddress(), amount: 1n }]);
      await waitFor(() => connections > 0, { what: "a connection from the non-production worker" });
    } finally {
      await dev.stop(1_000);
      await deletePrefixKeys(devPrefix);
    }
  });
});
