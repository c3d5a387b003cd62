import { readFileSync } from "node:fs";
import path from "node:path";

export const MANIFEST_FILE = "manifest.json";
/** Where `npm run build` writes (packages/web/dist); WEB_DIST_DIR overrides it. */
export const DEFAULT_DIST_DIR = path.resolve(import.meta.dirname, "..", "..", "dist");

export interface PageAssets {
  /** Absolute URL paths of hashed files (`/assets/explorer-<hash>.js`). */
  js: string[];
  css: string[];
}

/** What `npm run build` wrote: every page's hashed files and every file's sizes (raw, gzip, brotli). */
export interface WebManifest {
  version: 1;
  builtAt: string;
  buildMs: number;
  pages: { explorer: PageAssets; approve: PageAssets; graphiql: PageAssets };
  files: Record<string, { bytes: number; gzipBytes: number; brotliBytes: number }>;
}

export class WebAssetsMissingError extends Error {
  constructor(dir: string, cause: unknown) {
    super(`the web assets are not built (no ${path.join(dir, MANIFEST_FILE)}): run npm run build`, { cause });
    this.name = "WebAssetsMissingError";
  }
}

/** Reads dist/manifest.json; throws WebAssetsMissingError when the build has not run. */
export function readManifest(dir: string): WebManifest {
  try {
    return JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), "utf8")) as WebManifest;
  } catch (error) {
    throw new WebAssetsMissingError(dir, error);
  }
}
