import { afterAll, describe, expect, it } from "vitest";
import { startOpsServer } from "./startOpsServer.ts";

// The operations port shared by the indexer (INDEXER_METRICS_PORT) and the worker (WORKER_METRICS_PORT), as a real
// HTTP server on loopback.

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function start(options: Partial<Parameters<typeof startOpsServer>[0]> = {}) {
  const server = await startOpsServer({
    port: 0,
    metrics: async () => "agent_ledger_test_total 3\n",
    contentType: "text/plain; version=0.0.4; charset=utf-8",
    ...options,
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

async function reaches(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3_000) })).status === 200;
  } catch {
    return false;
  }
}

describe("startOpsServer", () => {
  it("serves /metrics with the registry's content type and /healthz with the process status; HEAD has no body", async () => {
    let leader = false;
    const base = await start({ status: () => ({ leader, head: "12" }) });
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(metrics.headers.get("cache-control")).toBe("no-store");
    expect(await metrics.text()).toBe("agent_ledger_test_total 3\n");
    expect(await (await fetch(`${base}/healthz?x=1`)).json()).toEqual({ ok: true, leader: false, head: "12" });
    leader = true;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true, leader: true, head: "12" });
    const head = await fetch(`${base}/metrics`, { method: "HEAD" });
    expect([head.status, await head.text()]).toEqual([200, ""]);
  });

  it("without a status, /healthz is { ok: true } (the worker)", async () => {
    const base = await start();
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
  });

  it("answers JSON errors: 405 with Allow for another method, 404 for another path, 500 when the registry fails", async () => {
    const base = await start({
      metrics: async () => {
        throw new Error("collector broke");
      },
    });
    const post = await fetch(`${base}/healthz`, { method: "POST" });
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect(await post.json()).toEqual({ error: { code: "method_not_allowed", message: "POST is not allowed on /healthz" } });
    const missing = await fetch(`${base}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "no route for GET /nope" } });
    const broken = await fetch(`${base}/metrics`);
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: { code: "internal_error", message: "collector broke" } });
  });

  // All of 127.0.0.0/8 is loopback on Linux: a server bound to 127.0.0.1 does not answer on 127.0.0.2, one bound to
  // 0.0.0.0 does.
  it.runIf(process.platform === "linux")("binds 127.0.0.1 unless given a host", async () => {
    const local = new URL(await start());
    expect(await reaches(`http://127.0.0.1:${local.port}/healthz`)).toBe(true);
    expect(await reaches(`http://127.0.0.2:${local.port}/healthz`)).toBe(false);
    const everywhere = new URL(await start({ host: "0.0.0.0" }));
    expect(await reaches(`http://127.0.0.2:${everywhere.port}/healthz`)).toBe(true);
  });
});
