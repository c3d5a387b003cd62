// Builds the publishable `agent-ledger` command into packages/cli/dist (part of `npm run build`).
// Decided: esbuild bundles our own code — src/ and the private workspace packages it imports (@agent-ledger/core,
// @agent-ledger/mcp), which are never published — into ES modules; every npm package stays an import and must be
// listed in this package's `dependencies` (the build fails otherwise), so `npm install -g <tarball>` installs exactly
// what the command needs. Code splitting keeps `agent-ledger mcp` (MCP SDK, zod, viem) in chunks that other commands
// never load, so `--help` starts in a few tens of milliseconds.
// The MCP methodology resource reads docs/methodology.md next to the code: the build copies it into
// packages/cli/docs/ and points the bundled reader there.
// Usage: npx tsx packages/cli/scripts/build.ts
import { chmod, copyFile, mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { build, type Plugin } from "esbuild";

const PKG = path.resolve(import.meta.dirname, "..");
const ROOT = path.resolve(PKG, "..", "..");
export const CLI_DIST = path.join(PKG, "dist");

/** The methodology reader of @agent-ledger/mcp points at ../../../docs from its source; in the bundle: ../docs. */
const methodologyPath: Plugin = {
  name: "methodology-path",
  setup(b) {
    b.onLoad({ filter: /registerResources\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const from = '"../../../docs/methodology.md"';
      if (!source.includes(from)) throw new Error(`${args.path} no longer reads ${from}: update packages/cli/scripts/build.ts`);
      return { contents: source.replace(from, '"../docs/methodology.md"'), loader: "ts" };
    });
  },
};

/** Bundles src/main.ts into dist/agent-ledger.js (+ chunks). Returns the npm packages the bundle imports. */
export async function buildCli(): Promise<{ externals: string[]; ms: number }> {
  const t0 = performance.now();
  const pkg = JSON.parse(await readFile(path.join(PKG, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  await rm(CLI_DIST, { recursive: true, force: true });
  const result = await build({
    entryPoints: { "agent-ledger": path.join(PKG, "src", "main.ts") },
    outdir: CLI_DIST,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["agent-ledger-source"],
    // npm packages are installed next to the command (declared dependencies); our workspace packages are bundled.
    plugins: [
      methodologyPath,
      {
        name: "externals",
        setup: (b) => b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith("@agent-ledger/") ? undefined : { path: a.path, external: true })),
      },
    ],
    banner: { js: "#!/usr/bin/env node" },
    // Flat: src/version.ts and the methodology reader resolve ../package.json and ../docs from whichever file they land in.
    chunkNames: "[name]-[hash]",
    sourcemap: false,
    metafile: true,
    logLevel: "silent",
  });
  const externals = new Set<string>();
  for (const out of Object.values(result.metafile.outputs)) {
    for (const imp of out.imports) {
      if (!imp.external || imp.path.startsWith("node:")) continue;
      const parts = imp.path.split("/");
      externals.add(imp.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
    }
  }
  const undeclared = [...externals].filter((name) => !pkg.dependencies?.[name]);
  if (undeclared.length) throw new Error(`the CLI bundle imports ${undeclared.join(", ")}, which packages/cli/package.json does not list in dependencies`);
  const workspaceDeps = Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith("@agent-ledger/"));
  if (workspaceDeps.length)
    throw new Error(`packages/cli lists ${workspaceDeps.join(", ")} in dependencies: they are bundled and unpublished, list them in devDependencies`);
  // The shebang sits only on the entry; chunks are plain modules.
  await chmod(path.join(CLI_DIST, "agent-ledger.js"), 0o755);
  await mkdir(path.join(PKG, "docs"), { recursive: true });
  await copyFile(path.join(ROOT, "docs", "methodology.md"), path.join(PKG, "docs", "methodology.md"));
  return { externals: [...externals].sort(), ms: Math.round(performance.now() - t0) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { externals, ms } = await buildCli();
  console.log(`built ${path.relative(process.cwd(), CLI_DIST)}/agent-ledger.js in ${ms} ms (npm imports: ${externals.join(", ")})`);
}
