import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { buildCli } from "../packages/cli/scripts/build.ts";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";

// The published shape of the `agent-ledger` command: build it (packages/cli/scripts/build.ts), `npm pack` the
// workspace, `npm install -g` the tarball into an empty prefix, and run the installed command — no repository, no
// tsx, no workspace packages on its module path — against a real API: --help, status, and the MCP server on stdio.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
let dir: string;
let bin: string;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: ReturnType<typeof createPgPool>;
let app: App;
let api: string;

/** The installed command in a clean environment (no NODE_OPTIONS: nothing of the repository's set-up leaks in). */
function agentLedger(args: string[], input?: string, closeStdinWhen?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: dir,
      env: {
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: dir,
        AGENT_LEDGER_CONFIG_DIR: path.join(dir, "config"),
        AGENT_LEDGER_NO_BROWSER: "1",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
      if (closeStdinWhen?.test(stdout)) child.stdin.end();
    });
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (input === undefined) child.stdin.end();
    else if (closeStdinWhen)
      child.stdin.write(input); // the server stops when stdin closes: after the last answer
    else child.stdin.end(input);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "al-cli-pack-"));
  await buildCli();
  await run("npm", ["pack", "-w", "@agent-ledger/cli", "--pack-destination", dir], { cwd: ROOT });
  const tgz = (await readdir(dir)).find((f) => f.endsWith(".tgz"));
  if (!tgz) throw new Error("npm pack wrote no tarball");
  const prefix = path.join(dir, "prefix");
  // --prefer-offline: the dependencies come from npm's cache (they are installed in this repository), else the registry.
  await run("npm", ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", path.join(dir, tgz)], { cwd: dir, timeout: 240_000 });
  bin = path.join(prefix, "bin", "agent-ledger");
  db = await createTestDatabase();
  pool = createPgPool(db.url, { max: 4 });
  app = buildApp({ pool, log: pino({ level: "silent" }), dashboardCacheTtlMs: 0 });
  api = await app.start(0, "127.0.0.1");
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await pool?.end();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the agent-ledger tarball, installed alone", () => {
  it("contains compiled JavaScript only and declares its npm dependencies", async () => {
    const { stdout } = await run("tar", ["-tzf", path.join(dir, (await readdir(dir)).find((f) => f.endsWith(".tgz"))!)]);
    const files = stdout.trim().split("\n");
    expect(files).toContain("package/dist/agent-ledger.js");
    expect(files).toContain("package/bin/agent-ledger.js");
    expect(files).toContain("package/docs/methodology.md");
    expect(files.filter((f) => f.endsWith(".ts"))).toEqual([]);
    const installed = await readdir(path.join(dir, "prefix", "lib", "node_modules", "@agent-ledger", "cli", "node_modules"));
    expect(installed).not.toContain("tsx");
    expect(installed).not.toContain("@agent-ledger");
  });

  it("--help", async () => {
    const r = await agentLedger(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/agent-ledger/);
    expect(r.stdout).toMatch(/status/);
  });

  it("status against a real API: not paired here, then a session the API does not know", async () => {
    const unpaired = await agentLedger(["--api", api, "status"]);
    expect(unpaired.code).not.toBe(0);
    expect(unpaired.stderr).toMatch(/pair/);
    await mkdir(path.join(dir, "config"), { recursive: true });
    const session = {
      api,
      access_token: "alt_unknown_to_this_api",
      token_type: "Bearer",
      session_id: "fixture",
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      agent_key_address: "0x0",
      managed_address: "0x0",
      spend_cap_wei: "1000000",
      per_call_cap_wei: "100000",
      token: "0x20c0000000000000000000000000000000000000",
      agent_label: "fixture",
      paired_at: new Date().toISOString(),
    };
    await writeFile(path.join(dir, "config", "credentials.json"), JSON.stringify({ version: 1, current: api, sessions: { [api]: session } }), { mode: 0o600 });
    const refused = await agentLedger(["--api", api, "status", "--json"]);
    expect(refused.code).not.toBe(0);
    // the API's own refusal, relayed: the installed command spoke HTTP to it
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/unauthorized|not_configured|session/);
  });

  it("mcp: the MCP server on stdio answers initialize and lists its tools", async () => {
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pack-test", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "agent-ledger://docs/methodology" } },
    ];
    const r = await agentLedger(["--api", api, "mcp"], `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`, /"id":3\b/);
    const answers = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id?: number; result?: Record<string, unknown> });
    const byId = new Map(answers.map((a) => [a.id, a.result]));
    expect((byId.get(1) as { serverInfo?: { name?: string } })?.serverInfo?.name).toBeTruthy();
    const tools = (byId.get(2) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools.length).toBeGreaterThan(3);
    const doc = (byId.get(3) as { contents: { text: string }[] }).contents[0]!.text;
    expect(doc).toMatch(/methodology/i);
  });
});
