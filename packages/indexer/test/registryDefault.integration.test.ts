// The chain id decides the registry the indexer loads when REGISTRY_FILE is unset (docs/registry.md): the real
// indexer process against an anvil devnet (chain 31337) picks registry/demo.json; REGISTRY_FILE still wins, and a v3
// registry of another chain (registry/mainnet.json, chain 4217) is refused before anything is loaded.
import { spawn } from "node:child_process";
import path from "node:path";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const MAIN = path.join(ROOT, "packages/indexer/src/main.ts");

/** Runs the indexer until `stopWhen` sees a log line (then SIGTERM) or it exits; returns its lines and exit code. */
function runIndexer(env: Record<string, string | undefined>, stopWhen: (line: Record<string, unknown>) => boolean) {
  const { REGISTRY_FILE: _inherited, ...base } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], { cwd: ROOT, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: Record<string, unknown>[] = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split("\n");
    rest = parts.pop() ?? "";
    for (const p of parts) {
      if (!p.trim()) continue;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(p);
      } catch {
        line = { msg: p };
      }
      lines.push(line);
      if (stopWhen(line)) child.kill("SIGTERM");
    }
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise<{ code: number | null; lines: Record<string, unknown>[] }>((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, lines });
    }),
  );
}

describe("the indexer's default registry follows the chain id", () => {
  let anvil: AnvilInstance;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    [anvil, db] = await Promise.all([startAnvil(), createTestDatabase()]);
  });
  afterAll(async () => {
    await Promise.allSettled([anvil?.stop(), db?.drop()]);
  });
  const sources = async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query("SELECT source FROM registry_sources ORDER BY source")).rows.map((r) => r.source as string);
    } finally {
      await c.end();
    }
  };
  const common = () => ({ DATABASE_URL: db.url, TEMPO_RPC_URL: anvil.url, INDEXER_METRICS_PORT: "-1", LOG_LEVEL: "info" });

  it("REGISTRY_FILE unset on the devnet (31337): registry/demo.json, chosen by the chain id", async () => {
    const run = await runIndexer(common(), (l) => l.msg === "registry loaded");
    const loaded = run.lines.find((l) => l.msg === "registry loaded");
    expect(loaded, JSON.stringify(run.lines)).toMatchObject({ file: "registry/demo.json", chainId: 31337, chosenBy: "chain id" });
    expect(run.code).toBe(0);
    expect(await sources()).toEqual(["registry:demo.json"]);
  });

  it("REGISTRY_FILE wins, and a registry of another chain is refused before anything is loaded", async () => {
    const run = await runIndexer({ ...common(), REGISTRY_FILE: "registry/mainnet.json" }, (l) => l.msg === "registry loaded");
    expect(run.code).toBe(1);
    const fatal = run.lines.find((l) => l.msg === "indexer failed") as { err?: { message?: string } } | undefined;
    expect(fatal?.err?.message).toBe(
      "registry/mainnet.json is the registry of chain 4217, but the RPC serves chain 31337: unset REGISTRY_FILE to use chain 31337's default, or name its registry",
    );
    expect(await sources()).toEqual(["registry:demo.json"]); // nothing of mainnet.json was loaded
  });

  it("REGISTRY_FILE unset and the RPC down: it keeps asking the chain id (warning each time) and loads nothing meanwhile", async () => {
    let failures = 0;
    const run = await runIndexer({ ...common(), TEMPO_RPC_URL: "http://127.0.0.1:9/" }, (l) => l.msg === "eth_chainId failed; retrying" && ++failures === 2);
    expect(run.lines.filter((l) => l.msg === "eth_chainId failed; retrying").map((l) => l.attempt)).toEqual([1, 2]);
    expect(run.lines.some((l) => l.msg === "registry loaded")).toBe(false);
    expect(await sources()).toEqual(["registry:demo.json"]);
  });
});
