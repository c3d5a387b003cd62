import { execFile } from "node:child_process";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// README: "In this repository `npx agent-ledger` runs it (`npm install` builds it)". npm links the workspace's bin
// into the root node_modules/.bin on install, and postinstall builds packages/cli/dist; this runs exactly what a
// person types after `npm install` in a clone: `npx --no-install agent-ledger --help` from the repository root, in
// a clean environment (no NODE_OPTIONS, so the compiled dist/ runs, not the sources).

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

describe("npx agent-ledger from the repository root", () => {
  it("is linked to the CLI workspace's bin", async () => {
    expect(await realpath(path.join(ROOT, "node_modules", ".bin", "agent-ledger"))).toBe(
      await realpath(path.join(ROOT, "packages", "cli", "bin", "agent-ledger.js")),
    );
  });

  it("prints the usage without installing anything", async () => {
    const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: process.env.HOME ?? "/tmp", npm_config_update_notifier: "false" };
    const { stdout } = await run("npx", ["--no-install", "agent-ledger", "--help"], { cwd: ROOT, env, timeout: 60_000 });
    expect(stdout).toMatch(/^agent-ledger \d+\.\d+\.\d+ /);
    expect(stdout).toContain("Usage: agent-ledger <command> [options]");
  });
});
