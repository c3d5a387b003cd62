import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { WebManifest } from "./manifest.ts";
import { negotiateEncoding } from "./negotiateEncoding.ts";

const TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml" };
export const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Serves the hashed files of the manifest under `/assets/`: a file's name changes with its content, so it is cached
 * for a year (`immutable`); the brotli or gzip copy written by the build is sent when the client accepts it.
 * Files are read once and kept in memory. Returns false for any other path.
 */
export function createAssetServer(distDir: string, manifest: WebManifest) {
  const cache = new Map<string, Promise<Buffer>>();
  const load = (file: string) => {
    let p = cache.get(file);
    if (!p) {
      p = readFile(path.join(distDir, "assets", file));
      p.catch(() => cache.delete(file));
      cache.set(file, p);
    }
    return p;
  };
  return async function serveAsset(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
    if (!pathname.startsWith("/assets/") || !Object.hasOwn(manifest.files, pathname)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ error: { code: "method_not_allowed", message: `${req.method} is not allowed on ${pathname}` } }));
      return true;
    }
    const name = pathname.slice("/assets/".length);
    const encoding = negotiateEncoding(req.headers["accept-encoding"]);
    const body = await load(encoding === "br" ? `${name}.br` : encoding === "gzip" ? `${name}.gz` : name);
    const headers: Record<string, string> = {
      "content-type": TYPES[path.extname(name)] ?? "application/octet-stream",
      "cache-control": IMMUTABLE,
      vary: "accept-encoding",
      "x-content-type-options": "nosniff",
      "cross-origin-resource-policy": "same-origin",
      "content-length": String(body.length),
    };
    if (encoding) headers["content-encoding"] = encoding;
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : body);
    return true;
  };
}
