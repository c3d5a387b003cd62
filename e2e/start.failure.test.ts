import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { freePort } from "../packages/api/test/support/freePort.ts";

// `npm start` stopped by a failing service must leave nothing running: the next `npm start` used to fail with
// "Address already in use" because the devnet's anvil outlived it. The indexer is made to fail on purpose (the mainnet
// registry on the devnet's chain 31337 is refused) once the devnet, its anvil and the other services are up.

const ROOT = path.resolve(import.meta.dirname, "..");
let child: ChildProcess | undefined;
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

/** Pids of processes whose command line mentions `needle` (this machine's /proc, through ps). */
function processesMentioning(needle: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(needle) && !l.includes("ps -eo"))
    .map((l) => l.trim());
}
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  await db?.drop();
});

describe("npm start when a service fails", () => {
  it("stops every service and the devnet's anvil, so the ports are free again", async () => {
    db = await createTestDatabase();
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
        QUEUE_PREFIX: `start-fail-test-${process.pid}`,
        RATE_LIMIT_PREFIX: `start-fail-test-${process.pid}`,
        REGISTRY_FILE: "registry/mainnet.json", // chain 4217's registry: the indexer refuses it on 31337 and exits 1
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: afterAll can reach npm's children if the test fails
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not stop within 9 minutes:\n${out}`)), 540_000);
      child!.once("exit", (c) => (clearTimeout(timer), resolve(c)));
    });
    expect(out).toMatch(/✓ devnet/);
    expect(out).toMatch(/indexer exited \(code 1\); stopping the rest/);
    expect(code).toBe(1);
    // Nothing it started is left: no anvil (or watchdog) on the devnet's port, no service on the API's port.
    const deadline = Date.now() + 5_000;
    while (processesMentioning(`--port ${devnetPort}`).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(processesMentioning(`--port ${devnetPort}`)).toEqual([]);
    expect(await listening(devnetPort)).toBe(false);
    expect(await listening(apiPort)).toBe(false);
  }, 600_000);
});
