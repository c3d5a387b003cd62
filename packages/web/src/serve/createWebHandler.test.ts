import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebAssets } from "../../scripts/build.ts";
import { createApprovalPageHandler } from "../createApprovalPageHandler.ts";
import { createWebHandler } from "./createWebHandler.ts";
import type { WebManifest } from "./manifest.ts";

// The build (esbuild into a temporary folder) and the handlers that serve it, over real HTTP.

let dir: string;
let manifest: WebManifest;
let server: Server;
let base: string;
const asked: { query: string; variables: Record<string, unknown> }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "al-web-"));
  manifest = await buildWebAssets(path.join(dir, "dist"));
  const web = createWebHandler({ distDir: path.join(dir, "dist"), exists: async (r) => r.param !== "nobody" });
  const missing = createWebHandler({ distDir: path.join(dir, "nothing-here") });
  // a page's first GraphQL answer, as the API computes it in-process (here: a stand-in; buildApp runs the real query);
  // the window "all" never answers (the HTML goes out without it after the timeout)
  const inline = createWebHandler({
    distDir: path.join(dir, "dist"),
    firstAnswerTimeoutMs: 100,
    firstAnswer: async (r) => {
      asked.push(r);
      if (r.variables.w === "all") return new Promise<string>(() => {});
      return JSON.stringify({ data: { w: r.variables.w ?? null, label: "</script><script>alert(1)</script><!--" } });
    },
  });
  const approve = createApprovalPageHandler({ manifest: web.manifest });
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/unbuilt/")) {
      url.pathname = url.pathname.slice("/unbuilt".length);
      if (await missing.handle(req, res, url)) return;
    } else if (url.pathname.startsWith("/inline/")) {
      url.pathname = url.pathname.slice("/inline".length);
      if (await inline.handle(req, res, url)) return;
    } else if ((await approve(req, res, url)) || (await web.handle(req, res, url))) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"error":{"code":"not_found","message":"api"}}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

/** A raw GET (fetch would decompress and hide content-encoding). */
function raw(
  pathname: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(`${base}${pathname}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

describe("npm run build", () => {
  it("writes hashed files for each page, their gzip and brotli copies, and a manifest with their sizes", () => {
    for (const page of ["explorer", "approve", "graphiql"] as const) {
      expect(manifest.pages[page].js[0]).toMatch(new RegExp(`^/assets/${page}-[A-Za-z0-9]+\\.js$`));
      expect(manifest.pages[page].css[0]).toMatch(/^\/assets\/[a-z-]+-[A-Za-z0-9]+\.css$/);
    }
    const js = manifest.files[manifest.pages.explorer.js[0]!]!;
    expect(js.gzipBytes).toBeLessThan(js.bytes);
    expect(js.brotliBytes).toBeLessThan(js.bytes);
  });
});

describe("assets", () => {
  it("are immutable for a year and sent brotli, gzip or plain as the client accepts", async () => {
    const file = manifest.pages.explorer.js[0]!;
    const plain = await raw(file);
    expect(plain.status).toBe(200);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("accept-encoding");
    const br = await raw(file, { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    const gz = await raw(file, { "accept-encoding": "gzip, br;q=0" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect((await raw("/assets/explorer-doesnotexist.js", { accept: "*/*" })).status).toBe(404);
  });
});

describe("pages", () => {
  const html = { accept: "text/html,application/xhtml+xml" };
  it("serve the explorer with its title, a strict CSP and a revalidated (no-cache) HTML", async () => {
    const res = await fetch(`${base}/`, { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe");
    const text = await res.text();
    expect(text).toContain("<title>Agent Ledger — live payments of AI agents on Tempo</title>");
    expect(text).toContain(`<script type="module" src="${manifest.pages.explorer.js[0]}"></script>`);
    // the boot script (sends the page's first GraphQL request) comes first, async, before the app's modules
    const boot = manifest.pages.explorer.js.find((f) => f.startsWith("/assets/explorer-boot-"))!;
    expect(boot).toBeDefined();
    expect(text.indexOf(`<script async src="${boot}"></script>`)).toBeGreaterThan(0);
    expect(text.indexOf(`<script async src="${boot}"></script>`)).toBeLessThan(text.indexOf('<script type="module"'));
    const etag = res.headers.get("etag")!;
    const again = await fetch(`${base}/`, { headers: { ...html, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("no-cache");
    // as a compressing CDN sends it back (weakened), in a list, and *: still 304; another tag: the page
    for (const inm of [`W/${etag}`, `"old", ${etag}`, "*"])
      expect((await fetch(`${base}/`, { headers: { ...html, "if-none-match": inm } })).status, inm).toBe(304);
    expect((await fetch(`${base}/`, { headers: { ...html, "if-none-match": '"old"' } })).status).toBe(200);
    const agent = await fetch(`${base}/agents/alpha`);
    expect(agent.status).toBe(200);
    expect(await agent.text()).toContain("<title>Agent alpha — Agent Ledger</title>");
  });
  it("carry the page's first GraphQL answer as a JSON data block after the scripts, escaped, without an ETag", async () => {
    const res = await fetch(`${base}/inline/?window=7d`, { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull(); // the figures change: never a 304 with old ones
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self';");
    const text = await res.text();
    expect(asked.at(-1)!.query).toMatch(/^query Dashboard\(\$w: String!\)/);
    expect(asked.at(-1)!.variables).toEqual({ w: "7d" });
    const block = /<script type="application\/json" id="first-answer" data-request="dashboard:7d">([^<]*)<\/script><\/body>/.exec(text);
    expect(block).not.toBeNull();
    // every "<" is written \u003c: the label cannot close the element, and JSON.parse gives the answer back exactly
    expect(JSON.parse(block![1]!)).toEqual({ data: { w: "7d", label: "</script><script>alert(1)</script><!--" } });
    expect(text.indexOf('id="first-answer"')).toBeGreaterThan(text.indexOf('<script type="module"'));
    // gzipped when the client accepts it
    const zipped = await raw("/inline/?window=7d", { accept: "text/html", "accept-encoding": "gzip, deflate, br" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.body).toString()).toContain('<script type="application/json" id="first-answer" data-request="dashboard:7d">');
    expect((await raw("/inline/?window=7d", { accept: "text/html" })).headers["content-encoding"]).toBeUndefined();
    // other pages carry the token allowlist's answer
    const services = await (await fetch(`${base}/inline/services`, { headers: html })).text();
    expect(services).toContain('data-request="tokens"');
    expect(asked.at(-1)).toEqual({ query: "query Tokens { tokens { address symbol decimals currency } }", variables: {} });
  });
  it("go out without the answer when it is not there in time (the page then asks itself)", async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/inline/?window=all`, { headers: html });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(text).not.toContain("first-answer");
    expect(text).toMatch(/<\/div><\/body>\n<\/html>\n$/);
  });
  it("answer 404 with the not-found page for unknown ids and unknown paths (browsers), JSON stays for others", async () => {
    const unknownId = await fetch(`${base}/agents/nobody`, { headers: html });
    expect(unknownId.status).toBe(404);
    expect(await unknownId.text()).toContain("<title>Not found — Agent Ledger</title>");
    const unknownPath = await fetch(`${base}/no/such/page`, { headers: html });
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const api = await fetch(`${base}/no/such/page`);
    expect(api.status).toBe(404);
    expect((await api.json()).error.message).toBe("api");
  });
  it("serve GraphiQL from our own bundle at GET /graphql for a browser, and leave API requests to the API", async () => {
    const res = await fetch(`${base}/graphql`, { headers: html });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(manifest.pages.graphiql.js[0]!);
    expect(text).not.toMatch(/https?:\/\//); // no CDN
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect((await fetch(`${base}/graphql?query={__typename}`, { headers: html })).status).toBe(200); // GraphiQL reads ?query=
    expect((await fetch(`${base}/graphql?query={__typename}`, { headers: { accept: "application/json" } })).status).toBe(404); // the API's
    expect((await fetch(`${base}/graphql`, { method: "POST" })).status).toBe(404);
  });
  it("serve the approval page with its hashed bundle, never cached, no referrer", async () => {
    const res = await fetch(`${base}/approve?code=BCDF-GHJK`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-security-policy")).not.toContain("unsafe");
    const text = await res.text();
    expect(text).toContain("Approve an agent");
    expect(text).toContain(`<script type="module" src="${manifest.pages.approve.js[0]}"></script>`);
    for (const id of text.matchAll(/<input id="([^"]+)"/g)) expect(text).toContain(`<label for="${id[1]}"`);
    expect((await fetch(`${base}/approve`, { method: "POST" })).status).toBe(405);
  });
  it("answer 503 web_not_built when npm run build has not run", async () => {
    const res = await fetch(`${base}/unbuilt/`, { headers: html });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("web_not_built");
  });
});
