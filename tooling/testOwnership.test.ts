// `npm test` runs each workspace package's tests with that package's vitest.config.ts (turbo.json → test), and the
// root's own tests with the root config (test:root). A test file that no package's config includes, or that sits in a
// package without a `test` script, would never run: every test file in the repository must have exactly one owner.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SKIP = new Set(["node_modules", "dist", "lib", ".git", ".turbo", "coverage"]);

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) testFiles(file, out);
    else if (/\.test\.[cm]?tsx?$/.test(entry.name)) out.push(path.relative(ROOT, file).split(path.sep).join("/"));
  }
  return out;
}

/** `src/**\/*.test.ts` → a RegExp over a relative path (the only glob forms our configs use: `**`, `*`). */
function globToRegExp(glob: string): RegExp {
  const source = glob
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === "**/" ? "(?:.*/)?" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`);
}

type Owner = { dir: string; include: RegExp[]; runsVitest: boolean };

async function owners(): Promise<Owner[]> {
  const rootPackage = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
  return Promise.all(
    rootPackage.workspaces.map(async (dir) => {
      const manifest = JSON.parse(readFileSync(path.join(ROOT, dir, "package.json"), "utf8")) as { scripts?: Record<string, string> };
      const config = (await import(pathToFileURL(path.join(ROOT, dir, "vitest.config.ts")).href).catch(() => ({ default: undefined }))) as {
        default?: { test?: { include?: string[] } };
      };
      return { dir, include: (config.default?.test?.include ?? []).map(globToRegExp), runsVitest: /\bvitest run\b/.test(manifest.scripts?.test ?? "") };
    }),
  );
}

describe("every test file runs under npm test", () => {
  it("belongs to a workspace package whose test script and vitest.config.ts include it, or to the root's own tests", async () => {
    const packages = await owners();
    const orphans: string[] = [];
    for (const file of testFiles(ROOT)) {
      const owner = packages.find((p) => file.startsWith(`${p.dir}/`));
      if (!owner) {
        // test:root runs what lies outside every workspace package (test/, tooling/) with the root vitest.config.ts.
        if (!/^(test|tooling)\/.*\.test\.ts$/.test(file)) orphans.push(file);
        continue;
      }
      const relative = file.slice(owner.dir.length + 1);
      if (!owner.runsVitest || !owner.include.some((re) => re.test(relative))) orphans.push(file);
    }
    expect(orphans).toEqual([]);
  });

  it("finds the tests it checks (the walk sees the repository)", () => {
    const files = testFiles(ROOT);
    expect(files).toContain("packages/core/src/errors.test.ts");
    expect(files).toContain("tooling/testOwnership.test.ts");
  });
});
