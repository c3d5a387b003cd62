// The import directions of ARCHITECTURE.md are Biome's noRestrictedImports rule (biome.json → overrides): a file with
// a forbidden import fails `biome lint`, an allowed one passes. Biome runs on a temporary copy of the layout with the
// repository's biome.json, so the working tree is never touched.
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIOME = path.join(ROOT, "node_modules", ".bin", "biome");

const FORBIDDEN: Array<[file: string, specifier: string]> = [
  ["packages/core/src/a.ts", "@agent-ledger/db"],
  ["packages/core/src/b.ts", "@agent-ledger/client"],
  ["packages/core/src/c/d.ts", "@agent-ledger/api/src/buildApp.ts"],
  ["prisma/src/a.ts", "@agent-ledger/runtime"],
  ["packages/db/src/a.ts", "@agent-ledger/api"],
  ["packages/runtime/src/a.ts", "@agent-ledger/db"],
  ["packages/client/src/a.ts", "@agent-ledger/mcp"],
  ["packages/devnet/src/a.ts", "@agent-ledger/indexer"],
  ["packages/indexer/src/a.ts", "@agent-ledger/worker"],
  ["packages/indexer/src/b.ts", "@agent-ledger/api"],
  ["packages/worker/src/a.ts", "@agent-ledger/indexer"],
  ["packages/worker/src/b.ts", "@agent-ledger/devnet"],
  ["packages/api/src/a.ts", "@agent-ledger/indexer"],
  ["packages/api/src/b.ts", "@agent-ledger/worker"],
  ["packages/api/src/c.ts", "../../worker/src/startWorker.ts"],
  ["packages/api/src/wallet/d.ts", "../../../../prisma/src/index.ts"],
  ["packages/web/src/a.ts", "@agent-ledger/db"],
  ["packages/web/src/b.tsx", "@agent-ledger/api"],
  ["packages/web/src/c.ts", "@agent-ledger/runtime"],
  ["packages/cli/src/a.ts", "@agent-ledger/indexer"],
  ["packages/cli/src/b.ts", "@agent-ledger/db/testing"],
  ["packages/cli/src/c.ts", "@agent-ledger/worker"],
  ["packages/mcp/src/a.ts", "@agent-ledger/db"],
  ["packages/mcp/src/b.ts", "@agent-ledger/api"],
];

const ALLOWED: Array<[file: string, specifier: string]> = [
  ["packages/core/src/a.ts", "viem"],
  ["packages/core/src/b.ts", "./money/parseTokenUnits.ts"],
  ["prisma/src/a.ts", "@agent-ledger/core"],
  ["packages/db/src/a.ts", "@agent-ledger/core/formatTokenUnits"],
  ["packages/runtime/src/a.ts", "@agent-ledger/core"],
  ["packages/client/src/a.ts", "@agent-ledger/core"],
  ["packages/devnet/src/a.ts", "@agent-ledger/core"],
  ["packages/devnet/src/a.ts", "@agent-ledger/runtime"],
  ["packages/indexer/src/a.ts", "@agent-ledger/db"],
  ["packages/indexer/src/b.ts", "@agent-ledger/runtime"],
  ["packages/worker/src/a.ts", "@agent-ledger/db/testing"],
  ["packages/api/src/a.ts", "@agent-ledger/web"],
  ["packages/api/src/b.ts", "@agent-ledger/mcp"],
  ["packages/api/src/c.ts", "@agent-ledger/client"],
  ["packages/api/src/wallet/d.ts", "../auth/authenticate.ts"],
  ["packages/web/src/a.ts", "@agent-ledger/client"],
  ["packages/cli/src/a.ts", "@agent-ledger/mcp"],
  ["packages/mcp/src/a.ts", "@agent-ledger/client"],
  // Tests and benchmarks may drive other services (ARCHITECTURE.md): the rule covers a package's sources only.
  ["packages/worker/src/a.test.ts", "@agent-ledger/indexer"],
  ["packages/worker/test/a.test.ts", "@agent-ledger/indexer"],
  ["packages/api/bench/a.ts", "@agent-ledger/indexer"],
];

type Diagnostic = { category: string; location?: { path?: string | { file?: string } } };

let dir: string;

/** Writes each file (one import, used) under a fresh copy of the layout, runs `biome lint` on them, and returns its exit
 * code and the files that drew a noRestrictedImports diagnostic. */
async function lint(cases: Array<[string, string]>): Promise<{ code: number; restricted: string[] }> {
  const root = await mkdtemp(path.join(dir, "case-"));
  await copyFile(path.join(ROOT, "biome.json"), path.join(root, "biome.json"));
  for (const [file, specifier] of cases) {
    await mkdir(path.join(root, path.dirname(file)), { recursive: true });
    await writeFile(path.join(root, file), `import { a } from ${JSON.stringify(specifier)};\n\nexport const b = a;\n`);
  }
  return new Promise((resolve, reject) => {
    execFile(BIOME, ["lint", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=none", ...cases.map(([f]) => f)], { cwd: root }, (error, stdout) => {
      if (error && typeof error.code !== "number") return reject(error);
      const report = JSON.parse(stdout) as { diagnostics: Diagnostic[] };
      const restricted = report.diagnostics
        .filter((d) => d.category === "lint/style/noRestrictedImports")
        .map((d) => (typeof d.location?.path === "string" ? d.location.path : (d.location?.path?.file ?? "")));
      resolve({ code: typeof error?.code === "number" ? error.code : 0, restricted: [...new Set(restricted)].sort() });
    });
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "agent-ledger-biome-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("biome lint enforces the import directions", () => {
  it("fails on each forbidden import, naming every file", async () => {
    const { code, restricted } = await lint(FORBIDDEN);
    expect(code).not.toBe(0);
    expect(restricted).toEqual(FORBIDDEN.map(([f]) => f).sort());
  });

  it("passes the allowed imports", async () => {
    const { code, restricted } = await lint(ALLOWED);
    expect(restricted).toEqual([]);
    expect(code).toBe(0);
  });
});
