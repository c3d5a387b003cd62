import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApprovalPage } from "./buildApprovalPage.ts";
import { createApprovalPageHandler } from "./createApprovalPageHandler.ts";

// The approval page handler over real HTTP with the real esbuild bundle.

let server: Server;
let base: string;
const errors: unknown[] = [];

beforeAll(async () => {
  const handler = createApprovalPageHandler();
  let failing = false;
  const broken = createApprovalPageHandler({ load: async () => Promise.reject(new Error("nope")), onError: (e) => errors.push(e) });
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/broken")) {
      failing = true;
      url.pathname = url.pathname.slice("/broken".length) || "/";
      if (await broken(req, res, url)) return;
    }
    if (!failing && (await handler(req, res, url))) return;
    res.writeHead(404);
    res.end("nope");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("buildApprovalPage", () => {
  it("bundles the page once, in memory, with viem/tempo and SimpleWebAuthn inside", async () => {
    const [a, b] = await Promise.all([buildApprovalPage(), buildApprovalPage()]);
    expect(a).toBe(b);
    expect(a.js.length).toBeGreaterThan(100_000);
    expect(/\bimport\s*\(?\s*["'](?:viem|@simplewebauthn|node:)/.test(a.js)).toBe(false); // everything is bundled
    expect(a.js.includes("/device/approve-init")).toBe(true);
    expect(a.html).toContain('<script type="module" src="/approve/app.js"></script>');
  });
});

describe("GET /approve", () => {
  it("serves the HTML with a strict CSP, no framing, no referrer, no caching", async () => {
    const res = await fetch(`${base}/approve?code=BCDF-GHJK`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).toContain("Approve an agent");
    expect(html).toMatch(/<html lang="en">/);
    // every input has a label
    for (const id of html.matchAll(/<input id="([^"]+)"/g)) expect(html).toContain(`<label for="${id[1]}"`);
  });
  it("serves the bundle and the stylesheet with ETags (304 on revalidation), HEAD without a body", async () => {
    const js = await fetch(`${base}/approve/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const etag = js.headers.get("etag")!;
    expect((await js.text()).length).toBeGreaterThan(100_000);
    const again = await fetch(`${base}/approve/app.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const css = await fetch(`${base}/approve/app.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const head = await fetch(`${base}/approve`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
  it("leaves other paths to the caller, refuses other methods, and answers 500 when the bundle cannot be built", async () => {
    expect((await fetch(`${base}/approve/other.js`)).status).toBe(404);
    expect((await fetch(`${base}/approved`)).status).toBe(404);
    const post = await fetch(`${base}/approve`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const broken = await fetch(`${base}/broken/approve`);
    expect(broken.status).toBe(500);
    expect((await broken.json()).error.code).toBe("internal_error");
    expect(errors).toHaveLength(1);
  });
});
