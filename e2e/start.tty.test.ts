import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import { freePort } from "../packages/api/test/support/freePort.ts";

// `npm start` following a node that is already thousands of blocks ahead (TEMPO_RPC_URL = an anvil with mined blocks,
// the indexer held to small batches): on a terminal (a pseudo-terminal from util-linux `script`) it draws one
// backfill progress line (blocks done / head, logs/s, ETA) until the indexer catches up; piped, the same backfill
// leaves no progress line and no terminal control codes. (The piped default run with the devnet: start.test.ts.)

const ROOT = path.resolve(import.meta.dirname, "..");
const BLOCKS = 6_000;
const DEV_KEY_3 = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
let anvil: AnvilInstance | undefined;
const cleanups: (() => Promise<unknown> | void)[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await anvil?.stop();
});

/** Runs npm start (through `script` when `tty`) on a fresh database until its ready block; returns what it printed. */
async function runStart(tty: boolean): Promise<string> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "LOG_LEVEL")),
    NODE_OPTIONS: "",
    DATABASE_URL: db.url,
    API_PORT: String(await freePort()),
    TEMPO_RPC_URL: anvil!.url,
    REGISTRY_FILE: "registry/demo.json",
    SPONSOR_PRIVATE_KEY: DEV_KEY_3,
    INDEXER_METRICS_PORT: "0",
    WORKER_METRICS_PORT: "0",
    QUEUE_PREFIX: `start-tty-test-${process.pid}-${tty}`,
    RATE_LIMIT_PREFIX: `start-tty-test-${process.pid}-${tty}`,
    // small batches: the backfill of BLOCKS empty blocks lasts seconds, long enough for the line to be drawn
    CHUNK_INITIAL_BLOCKS: "10",
    CHUNK_MAX_BLOCKS: "10",
    FETCH_AHEAD: "1",
    TERM: "xterm",
  };
  const child = tty
    ? spawn("script", ["-qfec", "npm start", "/dev/null"], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"], detached: true })
    : spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  cleanups.push(async () => {
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {}
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const deadline = Date.now() + 300_000; // a cold `tsc -b` on a loaded machine takes minutes
  while (!out.includes("Press Ctrl-C to stop.")) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`no ready block within 5 minutes:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  process.kill(-child.pid!, "SIGINT");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
  return out;
}

describe("npm start backfill progress", () => {
  it("draws a progress line on a terminal and none when piped", async () => {
    anvil = await startAnvil();
    await fetch(anvil.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: [`0x${BLOCKS.toString(16)}`] }),
    });

    const onTty = await runStart(true);
    const lines = [...onTty.matchAll(/indexer backfill: block ([\d,]+) \/ ([\d,]+) · (…|[\d,]+) logs\/s · ETA (…|\d+ s|\d+ min \d+ s)/g)];
    expect(lines.length, onTty).toBeGreaterThan(0);
    for (const m of lines) {
      expect(Number(m[2]!.replace(/,/g, ""))).toBeGreaterThanOrEqual(BLOCKS);
      expect(Number(m[1]!.replace(/,/g, ""))).toBeLessThan(BLOCKS);
    }
    expect(onTty).toContain("\r\x1b[2K"); // redrawn in place
    expect(onTty).toMatch(/✓.*indexer\s+at block \d+ \(head \d+\), following/);

    const piped = await runStart(false);
    expect(piped).toMatch(/✓ indexer\s+at block \d+ \(head \d+\), following/);
    expect(piped).not.toContain("indexer backfill");
    expect(piped).not.toContain("\x1b[");
  }, 720_000);
});
