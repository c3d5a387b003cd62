import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli } from "./support/spawnCli.ts";

// `agent-ledger pair` (a real child process) against a scripted device-code server: the polling schedule
// (poll_interval_seconds, 429 slow_down + Retry-After), the token stored 0600 and never printed, and the exit codes
// of the ways a pairing can end. The real server is exercised by packages/api/test/e2e.*.test.ts.

type Step = { status: number; body: unknown; headers?: Record<string, string> };
const SCRIPTS: Record<string, Step[]> = {
  happy: [
    { status: 200, body: { status: "pending" } },
    { status: 429, body: { error: { code: "slow_down", message: "poll at most every 1 s" } }, headers: { "retry-after": "2" } },
    { status: 200, body: { status: "pending" } },
    {
      status: 200,
      body: {
        status: "approved",
        access_token: "alt_SECRET_TOKEN_never_printed",
        token_type: "Bearer",
        session_id: "sess-1",
        expires_at: "2030-01-01T00:00:00.000Z",
        agent_key_address: "0x00000000000000000000000000000000000000a9",
        managed_address: "0x00000000000000000000000000000000000000b7",
        spend_cap_wei: "10000000",
        per_call_cap_wei: "1000000",
        token: "0x20c0000000000000000000000000000000000000",
      },
    },
  ],
  expired: [
    { status: 200, body: { status: "pending" } },
    { status: 200, body: { status: "expired" } },
  ],
  claimed: [{ status: 200, body: { status: "claimed" } }],
  gone: [{ status: 404, body: { error: { code: "not_found", message: "unknown device_id" } } }],
};

let server: Server;
let base: string;
const polls: Record<string, number[]> = {};
const labels: string[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(json));
      };
      if (req.method === "POST" && url.pathname === "/api/wallet/device/start") {
        const label = JSON.parse(body).agent_label as string;
        labels.push(label);
        const scenario = label.split(":")[0]!;
        return send(200, {
          code: "BCDF-GHJK",
          device_id: `${scenario}:${labels.length}`,
          approve_url: `${base}/approve?code=BCDF-GHJK`,
          expires_at: new Date(Date.now() + 300_000).toISOString(),
          poll_interval_seconds: 1,
          pairing_id: "pairing-1",
        });
      }
      if (req.method === "GET" && url.pathname === "/api/wallet/device/poll") {
        const device = url.searchParams.get("device_id")!;
        (polls[device] ??= []).push(Date.now());
        const step = SCRIPTS[device.split(":")[0]!]![polls[device]!.length - 1] ?? {
          status: 500,
          body: { error: { code: "script_over", message: "no more" } },
        };
        return send(step.status, step.body, step.headers);
      }
      send(404, { error: { code: "not_found", message: "no" } });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function configDir() {
  const d = await mkdtemp(join(tmpdir(), "al-pair-"));
  dirs.push(d);
  return d;
}

describe("agent-ledger pair", () => {
  it("prints the code and URL, polls on schedule (honouring slow_down's Retry-After), stores the token 0600 and never prints it", async () => {
    const dir = await configDir();
    const run = await runCli(["pair", "--api", base, "--label", "happy:bot", "--no-open"], { env: { AGENT_LEDGER_CONFIG_DIR: dir }, timeoutMs: 30_000 });
    expect(run.stderr).not.toMatch(/error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${base}/approve?code=BCDF-GHJK`);
    expect(run.stdout).toContain("BCDF-GHJK");
    expect(run.stdout).toMatch(/Paired\. This machine can now pay from 0x0+b7/);
    expect(run.stdout).toContain("limit 10.00 pathUSD in total, 1.00 per payment");
    expect(run.stdout + run.stderr).not.toContain("alt_SECRET_TOKEN");

    const times = polls[`happy:${labels.indexOf("happy:bot") + 1}`]!;
    expect(times).toHaveLength(4);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(950); // poll_interval_seconds = 1
    expect(gaps[1]).toBeGreaterThanOrEqual(1950); // 429 with Retry-After: 2
    expect(gaps[2]).toBeGreaterThanOrEqual(950); // back to the interval

    const path = join(dir, "credentials.json");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const file = JSON.parse(await readFile(path, "utf8"));
    expect(file.current).toBe(base);
    expect(file.sessions[base]).toMatchObject({
      access_token: "alt_SECRET_TOKEN_never_printed",
      session_id: "sess-1",
      agent_label: "happy:bot",
      spend_cap_wei: "10000000",
    });
  });

  it("--json prints one JSON line when it starts and one when it is paired, without the token", async () => {
    const dir = await configDir();
    const run = await runCli(["pair", "--json", "--api", base, "--label", "happy:json"], { env: { AGENT_LEDGER_CONFIG_DIR: dir }, timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ event: "started", code: "BCDF-GHJK", approve_url: `${base}/approve?code=BCDF-GHJK` });
    expect(lines[1]).toMatchObject({
      event: "paired",
      session_id: "sess-1",
      managed_address: "0x00000000000000000000000000000000000000b7",
      credentials_path: join(dir, "credentials.json"),
    });
    expect(run.stdout).not.toContain("alt_SECRET");
  });

  it.each([
    ["expired", 5, /expired before it was approved/],
    ["claimed", 1, /already handed out/],
    ["gone", 5, /no longer knows this pairing/],
  ])("ends with a clear message when the pairing is %s (exit %i) and stores nothing", async (scenario, exit, message) => {
    const dir = await configDir();
    const run = await runCli(["pair", "--api", base, "--label", `${scenario}:x`], { env: { AGENT_LEDGER_CONFIG_DIR: dir }, timeoutMs: 30_000 });
    expect(run.code).toBe(exit);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/hint: run `agent-ledger pair` again/);
    await expect(stat(join(dir, "credentials.json"))).rejects.toThrow(/ENOENT/);
  });

  it("stops on Ctrl-C with exit 130", async () => {
    const dir = await configDir();
    SCRIPTS.wait = Array.from({ length: 100 }, () => ({ status: 200, body: { status: "pending" } }));
    const p = spawnCli(["pair", "--api", base, "--label", "wait:x"], { env: { AGENT_LEDGER_CONFIG_DIR: dir } });
    await p.waitFor(/Waiting for approval/);
    p.kill("SIGINT");
    const run = await p.exited;
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/interrupted/);
  });

  it("exits 6 when the API cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r())); // nothing listens there now
    const run = await runCli(["pair", "--api", `http://127.0.0.1:${port}`], { env: { AGENT_LEDGER_CONFIG_DIR: await configDir() } });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(`cannot reach the API at http://127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
