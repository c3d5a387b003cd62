import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { PATH_USD } from "@agent-ledger/devnet";
import { SoftAuthenticator } from "../packages/api/test/support/softAuthenticator.ts";
import { registerUser } from "../packages/api/test/support/walletApp.ts";
import { freePort } from "../packages/api/test/support/freePort.ts";

// `npm start` as a person runs it (piped, so not a terminal): on free ports with a test database and the shared
// Redis, it builds when needed, starts devnet, indexer, worker and API from the build output, prints one ✓ line per
// part, then exactly one ready block whose URLs all answer; a new passkey account gets devnet pathUSD; per-transaction and per-batch lines stay out of the
// default output; Ctrl-C stops everything.

const ROOT = path.resolve(import.meta.dirname, "..");
let child: ChildProcess | undefined;
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGKILL");
  }
  await db?.drop();
});

describe("npm start", () => {
  it("prints a line per service, then one ready block whose URLs answer; stops on SIGINT", async () => {
    db = await createTestDatabase();
    // a ledger whose rollups were last built under another methodology version (an earlier run with v0.2): a new devnet
    // clears them, so their version claim goes too, and the indexer starts under today's default
    const seed = new pg.Client({ connectionString: db.url });
    await seed.connect();
    await seed.query("INSERT INTO rollups_version (id, methodology_version) VALUES (true, 'v0.2')");
    await seed.end();
    const [apiPort, devnetPort] = [await freePort(), await freePort()];
    child = spawn("npm", ["start"], {
      cwd: ROOT,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "LOG_LEVEL")),
        NODE_OPTIONS: "",
        DATABASE_URL: db.url,
        API_PORT: String(apiPort),
        DEVNET_PORT: String(devnetPort),
        INDEXER_METRICS_PORT: "0",
        WORKER_METRICS_PORT: "0",
        QUEUE_PREFIX: `start-test-${process.pid}`,
        RATE_LIMIT_PREFIX: `start-test-${process.pid}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: the cleanup reaches npm's children too
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((r) => child!.on("exit", (code) => r(code)));

    // generous: a cold `tsc -b` on a loaded 2-core machine takes minutes
    const deadline = Date.now() + 540_000;
    while (!out.includes("Press Ctrl-C to stop.")) {
      if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`no ready block within 9 minutes:\n${out}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    for (const part of ["PostgreSQL", "Redis", "build", "devnet", "api", "worker", "indexer"]) expect(out).toMatch(new RegExp(`✓ ${part}\\b`));

    const block = out.slice(out.indexOf("Agent Ledger is ready"));
    const url = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(block)?.[1];
    const api = `http://127.0.0.1:${apiPort}`;
    // the pages at localhost: the passkeys of the approval page and the owner console belong to it (not to 127.0.0.1)
    expect(url("Explorer")).toBe(`http://localhost:${apiPort}/`);
    expect(url("Wallet")).toBe(`http://localhost:${apiPort}/wallet`);
    expect((await fetch(url("Wallet")!)).status).toBe(200);
    expect(url("GraphQL")).toBe(`${api}/graphql`);
    expect(url("API")).toBe(`${api}/api/dashboard`);
    expect(url("MCP")).toBe(`${api}/mcp`);
    expect(url("Tempo RPC")).toBe(`http://127.0.0.1:${devnetPort}`);

    expect((await fetch(url("Explorer")!)).status).toBe(200);
    const gql = await fetch(url("GraphQL")!, { method: "POST", headers: { "content-type": "application/json" }, body: '{"query":"{ __typename }"}' });
    expect(gql.status).toBe(200);
    expect((await fetch(url("API")!)).status).toBe(200); // every printed URL answers as printed
    expect((await fetch(`${api}/readyz`)).status).toBe(200);
    const mcp = await fetch(url("MCP")!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(mcp.status).toBe(200);
    const rpc = await fetch(url("Tempo RPC")!, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
    });
    expect(rpc.status).toBe(200);

    // the local devnet gives every passkey account 1,000 pathUSD, so an agent paired here can pay at once
    const { user } = await registerUser(url("Wallet")!.replace(/\/wallet$/, ""), new SoftAuthenticator(), "start test owner");
    const balance = async () => {
      const data = `0x70a08231${user.managed_address.slice(2).toLowerCase().padStart(64, "0")}`; // balanceOf(address)
      const r = await fetch(url("Tempo RPC")!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ to: PATH_USD, data }, "latest"] }),
      });
      return BigInt((await r.json()).result);
    };
    await expect.poll(balance, { timeout: 30_000, interval: 500 }).toBe(1_000_000_000n);
    await expect.poll(() => out, { timeout: 5_000 }).toContain(`the passkey account ${user.managed_address} got 1,000 pathUSD`);

    // the demo pays through mppx and the ledger reads it under v0.3: a charge to the gateway is the named service's (by its
    // server id), and a session's payout is the session service's, paid by the agent (never by the escrow)
    const rows = async (service: string) => {
      const body = await (await fetch(`${api}/api/services/${service}/events?limit=100`)).json();
      return (Array.isArray(body) ? body : body.items) as {
        kind: string;
        attribution: string | null;
        counterparty_label: string;
        channel_id: string | null;
        routed_to_label: string;
      }[];
    };
    await expect
      .poll(async () => (await rows("image-generation-mpp")).some((r) => r.kind === "payment_received" && r.attribution === "server_id_host"), {
        timeout: 120_000,
        interval: 2_000,
      })
      .toBe(true);
    await expect
      .poll(
        async () =>
          (await rows("llm-inference-mpp")).some(
            (r) =>
              r.kind === "payment_received" && r.attribution === "session_escrow" && r.channel_id !== null && r.counterparty_label.startsWith("Demo agent"),
          ),
        { timeout: 240_000, interval: 2_000 },
      )
      .toBe(true);

    // a few seconds of demo traffic later: still one ready block, and no per-transaction or per-batch lines
    await new Promise((r) => setTimeout(r, 4_000));
    expect(out.split("Agent Ledger is ready").length - 1).toBe(1);
    expect(out).not.toMatch(/"event":"tx"/);
    expect(out).not.toMatch(/batch committed/);
    expect(out).not.toContain("indexer backfill"); // the progress line is for terminals only (start.tty.test.ts)

    process.kill(-child.pid!, "SIGINT");
    const code = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 90_000))]);
    expect(code).not.toBe("timeout"); // npm itself ends by the signal (code null); start.ts stopped the services first
    expect(out).toMatch(/stopped\./);
  }, 720_000);
});
