import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { APPROVAL_PAGE_CSS, approvalPageHtml } from "./approve/pageHtml.ts";

export interface ApprovalPageAssets {
  html: string;
  js: string;
  css: string;
  /** Strong ETags (quoted SHA-256 prefixes) of each asset. */
  etags: { html: string; js: string; css: string };
  /** Bundle time, ms. */
  buildMs: number;
}

export const APPROVAL_PAGE_PATHS = { html: "/approve", js: "/approve/app.js", css: "/approve/app.css" } as const;

const ENTRY = fileURLToPath(new URL("./approve/main.ts", import.meta.url));

let cached: Promise<ApprovalPageAssets> | undefined;

const etag = (s: string) => `"${createHash("sha256").update(s).digest("base64url").slice(0, 27)}"`;

/**
 * Bundles the approval page (viem/tempo + @simplewebauthn/browser + our code) with esbuild, in memory: nothing is
 * written to disk and nothing is downloaded. The first call builds (about a second); later calls share the result.
 * A failed build is not cached, so the next call tries again.
 */
export function buildApprovalPage(): Promise<ApprovalPageAssets> {
  cached ??= bundle().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function bundle(): Promise<ApprovalPageAssets> {
  const t0 = performance.now();
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    sourcemap: false,
    legalComments: "none",
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const js = result.outputFiles[0]?.text;
  if (!js) throw new Error("esbuild produced no output for the approval page");
  const html = approvalPageHtml({ scriptPath: APPROVAL_PAGE_PATHS.js, stylePath: APPROVAL_PAGE_PATHS.css });
  const css = APPROVAL_PAGE_CSS;
  return { html, js, css, etags: { html: etag(html), js: etag(js), css: etag(css) }, buildMs: Math.round(performance.now() - t0) };
}
