// `npm run build`: bundles every browser page of packages/web into packages/web/dist (git-ignored):
//   dist/assets/<name>-<hash>.{js,css}  hashed, immutable (served with a one-year cache), each with .gz and .br copies
//   dist/manifest.json                  which hashed file each page loads, and each file's sizes
// Pages: the explorer (Preact app, src/explorer/main.tsx), the passkey approval page (src/approve/main.ts) and
// GraphiQL (its own bundle from @graphql-yoga/render-graphiql, outside the explorer's budget, loaded only at /graphql).
// Nothing is downloaded: everything comes from node_modules. Usage: npx tsx packages/web/scripts/build.ts [outDir]
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlibConstants, gzip } from "node:zlib";
import { build } from "esbuild";
import { APPROVAL_PAGE_CSS } from "../src/approve/pageHtml.ts";
import { MANIFEST_FILE, type WebManifest } from "../src/serve/manifest.ts";

const gz = promisify(gzip);
const br = promisify(brotliCompress);
const SRC = path.resolve(import.meta.dirname, "..", "src");
export const DEFAULT_OUT_DIR = path.resolve(import.meta.dirname, "..", "dist");

const hashOf = (data: string | Buffer) => createHash("sha256").update(data).digest("base64url").replace(/[-_]/g, "").slice(0, 10);

async function bundle(entry: string, name: string, outDir: string): Promise<{ js: string; chunks: string[]; css: string | null }> {
  const result = await build({
    entryPoints: { [name]: entry },
    bundle: true,
    // the boot script is a classic script (its names stay out of the page's global scope)
    format: name === "explorer-boot" ? "iife" : "esm",
    // the explorer's dynamic imports (the owner console's passkey signer: viem + WebAuthn) become separate chunks,
    // loaded only when used, outside the explorer's budget
    splitting: name === "explorer",
    chunkNames: "chunk-[hash]",
    platform: "browser",
    target: "es2022",
    minify: true,
    outdir: path.join(outDir, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    metafile: true,
    sourcemap: false,
    legalComments: "none",
    logLevel: "silent",
    jsx: "automatic",
    jsxImportSource: "preact",
    // workspace packages export their TypeScript sources under the "agent-ledger-source" condition
    conditions: ["agent-ledger-source"],
    define: { "process.env.NODE_ENV": '"production"' },
    loader: { ".svg": "dataurl" },
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => `/assets/${path.basename(p)}`);
  // (dynamically imported modules are entry points of their own chunks: match the page's entry by its path)
  const entryOut = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint !== undefined && path.resolve(o.entryPoint) === path.resolve(entry));
  const js = entryOut ? `/assets/${path.basename(entryOut[0])}` : outputs.find((p) => p.endsWith(".js"));
  if (!js) throw new Error(`esbuild produced no script for ${name}`);
  // the entry's own stylesheet (lazily loaded chunks that import CSS get theirs too; the page links the entry's)
  const css = entryOut?.[1].cssBundle ?? Object.keys(result.metafile.outputs).find((p) => p.endsWith(".css"));
  // the chunks the entry imports statically (code it shares with lazily loaded pages): listed in the HTML beside it,
  // so the browser fetches them at once instead of after parsing the entry
  const chunks = (entryOut?.[1].imports ?? []).filter((i) => i.kind === "import-statement" && !i.external).map((i) => `/assets/${path.basename(i.path)}`);
  return { js, chunks, css: css ? `/assets/${path.basename(css)}` : null };
}

async function writeHashed(outDir: string, name: string, ext: string, content: string): Promise<string> {
  const file = `${name}-${hashOf(content)}.${ext}`;
  await writeFile(path.join(outDir, "assets", file), content);
  return `/assets/${file}`;
}

/** GraphiQL from @graphql-yoga/render-graphiql: its script, styles and Monaco workers as files (no inline script). */
async function graphiql(outDir: string): Promise<{ js: string; css: string }> {
  // The package exports only renderGraphiQL (one HTML string with everything inline); its parts live in graphiql.js.
  const entry = createRequire(import.meta.url).resolve("@graphql-yoga/render-graphiql");
  const g = (await import(pathToFileURL(path.join(path.dirname(entry), "..", "esm", "graphiql.js")).href)) as Record<
    "js" | "css" | "editorWorkerService" | "jsonWorker" | "graphqlWorker",
    string
  >;
  const workers = {
    editorWorkerService: await writeHashed(outDir, "graphiql-editor-worker", "js", g.editorWorkerService),
    json: await writeHashed(outDir, "graphiql-json-worker", "js", g.jsonWorker),
    graphql: await writeHashed(outDir, "graphiql-graphql-worker", "js", g.graphqlWorker),
  };
  const ours = await build({
    entryPoints: [path.join(SRC, "graphiql", "boot.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  const boot = `self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => (${JSON.stringify(workers)})[label] };
${g.js};
${ours.outputFiles[0]!.text}`;
  return { js: await writeHashed(outDir, "graphiql", "js", boot), css: await writeHashed(outDir, "graphiql", "css", g.css) };
}

/**
 * Builds every page into `target` and returns the manifest it wrote. The build goes to a sibling folder that then
 * replaces `target`, so a running API never reads a half-written build.
 */
export async function buildWebAssets(target = DEFAULT_OUT_DIR): Promise<WebManifest> {
  const t0 = performance.now();
  const outDir = `${target}.tmp-${process.pid}`;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(path.join(outDir, "assets"), { recursive: true });
  const explorer = await bundle(path.join(SRC, "explorer", "main.tsx"), "explorer", outDir);
  // a separate, tiny script (pageHtml writes it first, async): it sends the page's first GraphQL request while the app's bundle loads
  const explorerBoot = await bundle(path.join(SRC, "explorer", "boot.ts"), "explorer-boot", outDir);
  const approveJs = await bundle(path.join(SRC, "approve", "main.ts"), "approve", outDir);
  const approveCss = await writeHashed(outDir, "approve", "css", APPROVAL_PAGE_CSS);
  const gq = await graphiql(outDir);

  const files: WebManifest["files"] = {};
  for (const name of await readdir(path.join(outDir, "assets"))) {
    const raw = await readFile(path.join(outDir, "assets", name));
    const [g, b] = await Promise.all([
      gz(raw, { level: 9 }),
      // quality 11 for our own pages; GraphiQL's multi-megabyte files at 9 (11 takes half a minute for a few % less)
      br(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: raw.length > 1_000_000 ? 9 : 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    ]);
    await writeFile(path.join(outDir, "assets", `${name}.gz`), g);
    await writeFile(path.join(outDir, "assets", `${name}.br`), b);
    files[`/assets/${name}`] = { bytes: raw.length, gzipBytes: g.length, brotliBytes: b.length };
  }
  const manifest: WebManifest = {
    version: 1,
    builtAt: new Date().toISOString(),
    buildMs: Math.round(performance.now() - t0),
    pages: {
      explorer: { js: [explorer.js, ...explorer.chunks, explorerBoot.js], css: explorer.css ? [explorer.css] : [] },
      approve: { js: [approveJs.js], css: [approveCss] },
      graphiql: { js: [gq.js], css: [gq.css] },
    },
    files,
  };
  await writeFile(path.join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(target, { recursive: true, force: true });
  await rename(outDir, target);
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const outDir = process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_OUT_DIR;
  const m = await buildWebAssets(outDir);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const [page, p] of Object.entries(m.pages)) {
    const gzTotal = [...p.js, ...p.css].reduce((s, f) => s + (m.files[f]?.gzipBytes ?? 0), 0);
    console.log(`  ${page.padEnd(9)} ${[...p.js, ...p.css].join(" ")}  (${kb(gzTotal)} gzipped)`);
  }
  console.log(`built web assets into ${path.relative(process.cwd(), outDir) || "."} in ${m.buildMs} ms`);
}
