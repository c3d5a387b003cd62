import { buildDemoRegistry } from "@agent-ledger/devnet";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_ROUTES } from "../src/rest/readRoutes.ts";
import { EVENT_ROW_FIELDS, getJson, openapi, schemaProblems } from "./support/http.ts";
import { BIG_AMOUNT, IDLE_AGENT, RETIRED_SERVICE, WILDCARD_LABEL, type SeededLedger } from "./support/seedDevnetLedger.ts";
import { startSeededApp, type SeededApp } from "./support/seededApp.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";
import { LIVE } from "../src/rest/readCache.ts";

// Contract tests of every REST path against a ledger built by the real indexer from real devnet payments:
// status codes, exact field names and types (the OpenAPI schemas have additionalProperties: false), CORS and
// cache headers, error bodies, pagination, and the decided semantics that are easy to state per request.

let app: SeededApp | undefined;
let db: SeededApp["db"];
let seeded: SeededLedger;
let t: TestApp;
let sql: pg.Client;

beforeAll(async () => {
  app = await startSeededApp();
  ({ db, seeded, t, sql } = app);
}, 120_000);

afterAll(() => app?.close());

/** GETs a path, checks the response against openapi.json for its template, returns the body. */
async function ok(path: string, template: string) {
  const res = await getJson(t.url, path);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(schemaProblems(template, 200, res.body)).toEqual([]);
  return res;
}

async function fails(path: string, template: string | null, status: number, code: string, init?: RequestInit) {
  const res = await getJson(t.url, path, init);
  expect(res.status, path).toBe(status);
  expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("cache-control")).toBe("no-store");
  if (template) expect(schemaProblems(template, status, res.body)).toEqual([]);
  return res;
}

describe("openapi.json", () => {
  it("is served, is OpenAPI 3.1, and documents exactly the routed read paths (the others: openapi.document.test.ts)", async () => {
    const res = await ok("/api/openapi.json", "/api/openapi.json");
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openapi)));
    const documented = Object.keys(res.body.paths)
      .filter((p) => p.startsWith("/api/") && !/^\/api\/(wallet|webhooks|feed)\b/.test(p))
      .sort();
    const routed = READ_ROUTES.map((r) => r.path.replace(/:(\w+)/g, "{$1}")).sort();
    expect(documented).toEqual(routed);
  });
});

describe("GET /api/dashboard", () => {
  it("defaults to 24h, has the spec's camelCase fields, and is edge-cacheable", async () => {
    const res = await ok("/api/dashboard", "/api/dashboard");
    expect(res.headers.get("cache-control")).toBe("public, s-maxage=300, stale-while-revalidate=600");
    expect(Object.keys(res.body)).toEqual([
      "windowHours",
      "txCount",
      "agentsActive",
      "amountSumWei",
      "byToken",
      "providersDetected",
      "topServices",
      "topAgents",
      "topProviders",
      "recentEvents",
    ]);
    expect(res.body.windowHours).toBe(24);
    expect(res.body.txCount).toBeGreaterThan(50); // the burst of 55 payments 12 h ago
    expect((await getJson(t.url, "/api/dashboard?w=24h")).body).toEqual(res.body);
  });

  it.each([
    ["7d", 168],
    ["30d", 720],
  ])("w=%s has windowHours %i", async (w, hours) => {
    expect((await ok(`/api/dashboard?w=${w}`, "/api/dashboard")).body.windowHours).toBe(hours);
  });

  it("w=all spans from the first daily bucket, sums beyond 2^53 exactly, and lists 20 newest rows of the live version", async () => {
    const { body } = await ok("/api/dashboard?w=all", "/api/dashboard");
    const firstDay = Math.floor((seeded.now.getTime() - 40 * 86_400_000) / 86_400_000) * 86_400_000;
    expect(body.windowHours).toBe(Math.ceil((seeded.now.getTime() - firstDay) / 3_600_000));
    expect(BigInt(body.amountSumWei)).toBeGreaterThan(BIG_AMOUNT);
    const { rows } = await sql.query(
      "SELECT sum(amount_wei)::text AS s FROM (SELECT DISTINCT tx_hash, log_index, amount_wei FROM agent_events WHERE kind <> 'fee_paid') p",
    );
    expect(body.amountSumWei).toBe(rows[0].s);
    const ids = (await sql.query("SELECT id::int FROM agent_events ORDER BY id DESC LIMIT 20")).rows.map((r) => r.id);
    expect(body.recentEvents.map((e: { id: number }) => e.id)).toEqual(ids);
    for (const e of body.recentEvents) expect(Object.keys(e)).toEqual(EVENT_ROW_FIELDS);
    expect(body.topServices.every((s: { id: string }) => s.id.endsWith("-mpp"))).toBe(true);
    expect(body.topAgents.some((s: { id: string }) => s.id.endsWith("-mpp"))).toBe(false);
    const patterns = new Set(body.topProviders.map((p: { pattern: string }) => p.pattern));
    expect(patterns).toEqual(new Set(["address", "fingerprint"]));
    for (const p of body.topProviders) {
      expect(p.pattern === "address" ? p.address : p.fingerprint).toBe(p.key);
      if (p.pattern === "address") expect(p.label).toMatch(/provider/);
    }
  });

  it.each(["1h", "", "24H", "all ", "7d&w=24h"])("rejects w=%j with 400 invalid_window", async (w) => {
    await fails(`/api/dashboard?w=${encodeURIComponent(w)}`, "/api/dashboard", 400, "invalid_window");
  });

  it("computes a window once for concurrent requests (single-flight) and serves it from memory within the TTL", async () => {
    const cached = await startTestApp(db.url, { now: () => seeded.now, dashboardCacheTtlMs: 60_000 });
    try {
      const before = cached.queries();
      const bodies = await Promise.all(Array.from({ length: 8 }, () => getJson(cached.url, "/api/dashboard?w=7d")));
      const perComputation = cached.queries() - before;
      expect(perComputation).toBeGreaterThan(0);
      expect(new Set(bodies.map((b) => JSON.stringify(b.body))).size).toBe(1);
      await getJson(cached.url, "/api/dashboard?w=7d");
      expect(cached.queries() - before).toBe(perComputation);
      await getJson(cached.url, "/api/dashboard?w=30d"); // another window: computed separately
      expect(cached.queries() - before).toBe(2 * perComputation);
    } finally {
      await cached.close();
    }
  });
});

describe("GET /api/services and /api/agents", () => {
  it("/api/services lists curated services (incl. inactive) with 24 h / 7 d aggregates, by 7-day amount then id", async () => {
    const { body, headers } = await ok("/api/services", "/api/services");
    expect(headers.get("cache-control")).toBe(LIVE); // newest rows within 30 s (docs/api.md, Caching; test/rest.caching.test.ts)
    expect(body.every((s: { id: string; kind: string }) => s.id.endsWith("-mpp") && s.kind === "service")).toBe(true);
    const ids = body.map((s: { id: string }) => s.id);
    // every curated service of the demo registry (those paid directly, the gateway, the services named only by their MPP
    // server ids, the session services), and the retired one the seed adds; never an escrow
    const registryServices = buildDemoRegistry(seeded.keys)
      .entities.filter((e) => e.id.endsWith("-mpp"))
      .map((e) => e.id);
    expect(registryServices).toEqual(expect.arrayContaining([...seeded.keys.directServices.map((s) => s.id), "tempo-gateway-mpp"]));
    expect(new Set(ids)).toEqual(new Set([...registryServices, RETIRED_SERVICE.id]));
    const retired = body.find((s: { id: string }) => s.id === RETIRED_SERVICE.id);
    expect(retired).toMatchObject({
      active: false,
      txCount24h: 0,
      amountSumWei24h: "0",
      txCount7d: 0,
      amountSumWei7d: "0",
      lastEventAt: null,
      wallets: [RETIRED_SERVICE.wallet],
    });
    for (let i = 1; i < body.length; i++) {
      const [a, b] = [body[i - 1], body[i]];
      expect(BigInt(a.amountSumWei7d) > BigInt(b.amountSumWei7d) || (a.amountSumWei7d === b.amountSumWei7d && a.id < b.id)).toBe(true);
    }
    const weather = body.find((s: { id: string }) => s.id === "weather-api-mpp");
    expect(weather.txCount24h).toBeGreaterThanOrEqual(56); // burst of 55 + the payment 10 minutes ago
  });

  it("/api/agents lists every other watched entity", async () => {
    const { body } = await ok("/api/agents", "/api/agents");
    expect(new Set(body.map((s: { id: string }) => s.id))).toEqual(
      new Set([...seeded.keys.agents.map((a) => a.id), seeded.keys.retiredAgent.id, IDLE_AGENT.id]),
    ); // inactive entities are listed too
    expect(body.find((a: { id: string }) => a.id === IDLE_AGENT.id)).toMatchObject({ id: IDLE_AGENT.id, txCount7d: 0, lastEventAt: null });
    const alpha = body.find((a: { id: string }) => a.id === "demo-agent-alpha");
    expect(new Set(alpha.wallets)).toEqual(new Set([seeded.keys.agents[0]!.address, seeded.keys.alphaSecondWallet.address])); // the demo gives Alpha a second wallet
    expect(Date.parse(alpha.lastEventAt)).toBeLessThanOrEqual(seeded.now.getTime());
  });
});

describe("GET /api/services/:id and /api/agents/:id", () => {
  it("service detail: head, totals, 30 zero-filled UTC days ending today, 50 newest rows and a cursor", async () => {
    const { body } = await ok("/api/services/weather-api-mpp", "/api/services/{id}");
    expect(body).toMatchObject({ id: "weather-api-mpp", kind: "service", active: true });
    expect(body.providers).toBeUndefined();
    expect(body.trend).toHaveLength(30);
    expect(body.trend.at(-1).day).toBe(seeded.now.toISOString().slice(0, 10));
    expect(body.trend[0].day).toBe(new Date(seeded.now.getTime() - 29 * 86_400_000).toISOString().slice(0, 10));
    expect(body.recentEvents).toHaveLength(50);
    expect(body.recentEvents.every((e: { agent_id: string }) => e.agent_id === "weather-api-mpp")).toBe(true);
    expect(body.nextCursor).toEqual(expect.any(String));
    expect(body.totals.txCount).toBe(58);
  });

  it("the detail's cursor continues on /events, and pages cover every row exactly once", async () => {
    const { body } = await ok("/api/services/weather-api-mpp", "/api/services/{id}");
    const seen = body.recentEvents.map((e: { id: number }) => e.id);
    let cursor: string | null = body.nextCursor;
    while (cursor) {
      const page = await ok(`/api/services/weather-api-mpp/events?limit=3&cursor=${encodeURIComponent(cursor)}`, "/api/services/{id}/events");
      seen.push(...page.body.items.map((e: { id: number }) => e.id));
      cursor = page.body.nextCursor;
    }
    const all = (await sql.query("SELECT id::int FROM agent_events WHERE agent_id = 'weather-api-mpp' ORDER BY id DESC")).rows.map((r) => r.id);
    expect(seen).toEqual(all);
    const first = await ok("/api/agents/demo-agent-beta/events?limit=2", "/api/agents/{id}/events");
    expect(first.body.items).toHaveLength(2);
  });

  it("tempo-gateway-mpp detail has providers (pattern A addresses and pattern B fingerprints), by amount", async () => {
    const { body } = await ok("/api/services/tempo-gateway-mpp", "/api/services/{id}");
    const providers = body.providers as { key: string; pattern: string; label: string | null; amountSumWei: string; firstSeenAt: string; lastSeenAt: string }[];
    const routed = seeded.keys.routedServices;
    expect(new Set(providers.map((p) => p.key))).toEqual(
      new Set([...routed.map((r) => r.provider.address), ...routed.map((r) => r.fingerprint.toLowerCase())]),
    );
    const unlabelled = providers.find((p) => p.key === routed[2]!.fingerprint.toLowerCase());
    expect(unlabelled).toMatchObject({ pattern: "fingerprint", label: null, address: null });
    expect(providers.find((p) => p.key === routed[0]!.fingerprint.toLowerCase())?.label).toBe(routed[0]!.fingerprintLabel);
    for (let i = 1; i < providers.length; i++) expect(BigInt(providers[i - 1]!.amountSumWei) >= BigInt(providers[i]!.amountSumWei)).toBe(true);
    for (const p of providers) expect(Date.parse(p.firstSeenAt)).toBeLessThanOrEqual(Date.parse(p.lastSeenAt));
  });

  it("agent detail has the same shape; an idle agent has zero totals and an empty page", async () => {
    const { body } = await ok("/api/agents/demo-agent-gamma", "/api/agents/{id}");
    expect(body.totals.feeCount).toBeGreaterThan(0); // gamma tracks fees
    const idle = await ok(`/api/agents/${IDLE_AGENT.id}`, "/api/agents/{id}");
    expect(idle.body).toMatchObject({ totals: { txCount: 0, amountSumWei: "0", feeCount: 0, feeSumWei: "0" }, recentEvents: [], nextCursor: null });
    expect(idle.body.trend.every((d: { txCount: number }) => d.txCount === 0)).toBe(true);
  });

  it("404 not_found for unknown ids and for an id of the other kind", async () => {
    await fails("/api/services/nope-mpp", "/api/services/{id}", 404, "not_found");
    await fails("/api/services/demo-agent-alpha", "/api/services/{id}", 404, "not_found");
    await fails("/api/agents/weather-api-mpp", "/api/agents/{id}", 404, "not_found");
    await fails("/api/agents/nobody", "/api/agents/{id}", 404, "not_found");
    await fails("/api/agents/weather-api-mpp/events", "/api/agents/{id}/events", 404, "not_found");
  });

  it("400 for a bad cursor or limit on /events", async () => {
    await fails("/api/agents/demo-agent-alpha/events?cursor=bogus", "/api/agents/{id}/events", 400, "invalid_cursor");
    await fails("/api/agents/demo-agent-alpha/events?limit=0", "/api/agents/{id}/events", 400, "invalid_limit");
    await fails("/api/agents/demo-agent-alpha/events?limit=101", "/api/agents/{id}/events", 400, "invalid_limit");
  });
});

describe("GET /api/events/:id", () => {
  it("returns the spec's Event row plus log_index and the other rows of the transaction", async () => {
    // A gamma payment: gamma's payment_sent, the service's payment_received and gamma's fee_paid share the tx.
    const { rows } = await sql.query(
      "SELECT id::int, tx_hash FROM agent_events WHERE agent_id = 'demo-agent-gamma' AND kind = 'payment_sent' ORDER BY id LIMIT 1",
    );
    const { body } = await ok(`/api/events/${rows[0].id}`, "/api/events/{id}");
    expect(Object.keys(body)).toEqual([...EVENT_ROW_FIELDS, "log_index", "related_events", "session"]);
    const expected = (
      await sql.query("SELECT id::int FROM agent_events WHERE tx_hash = $1 AND id <> $2 ORDER BY log_index, agent_id", [rows[0].tx_hash, rows[0].id])
    ).rows.map((r) => r.id);
    expect(expected.length).toBe(2);
    expect(body.related_events.map((e: { id: number }) => e.id)).toEqual(expected);
    expect(body.related_events.every((e: { tx_hash: string }) => e.tx_hash === body.tx_hash)).toBe(true);
    for (const e of body.related_events) expect(Object.keys(e)).toEqual(EVENT_ROW_FIELDS);
  });

  it("serializes every column exactly as stored", async () => {
    const { rows } = await sql.query(
      `SELECT id::int, ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category, kind, amount_wei::text,
              token_address, tx_hash, source_block::int, methodology_version, routed_to_address, routed_to_label, routed_fingerprint, explorer_url,
              attribution, client_fingerprint, NULL AS client_label, channel_id, log_index, NULL AS session
       FROM agent_events WHERE amount_wei = $1`,
      [BIG_AMOUNT.toString()],
    );
    const { body } = await ok(`/api/events/${rows[0].id}`, "/api/events/{id}");
    const { related_events: _related, ...event } = body;
    expect(event).toEqual({ ...rows[0], ts: rows[0].ts.toISOString() }); // a v0.1 row: no attribution, client, channel or session
    expect(body.amount_wei).toBe(BIG_AMOUNT.toString());
  });

  it("400 invalid_id for malformed ids, 404 not_found for unknown ones", async () => {
    for (const id of ["abc", "-1", "0", "1e3", "1.5", "01", "99999999999999999999999", "9223372036854775808", "%00", "%20"]) {
      await fails(`/api/events/${id}`, "/api/events/{id}", 400, "invalid_id");
    }
    await fails("/api/events/9223372036854775807", "/api/events/{id}", 404, "not_found");
    await fails("/api/events/999999", "/api/events/{id}", 404, "not_found");
  });
});

describe("GET /api/search", () => {
  it("finds rows by exact tx hash (any case)", async () => {
    const { rows } = await sql.query("SELECT tx_hash, count(*)::int AS n FROM agent_events GROUP BY tx_hash ORDER BY n DESC LIMIT 1");
    const { body } = await ok(`/api/search?q=${rows[0].tx_hash.toUpperCase().replace("0X", "0x")}`, "/api/search");
    expect(body.events).toHaveLength(rows[0].n);
    expect(body.events.every((e: { tx_hash: string }) => e.tx_hash === rows[0].tx_hash)).toBe(true);
  });

  it("finds rows by counterparty address, labelled addresses by address, and trims q", async () => {
    const provider = seeded.keys.routedServices[0]!.provider.address;
    const { body } = await ok(`/api/search?q=${encodeURIComponent(`  ${provider.toUpperCase().replace("0X", "0x")} `)}`, "/api/search");
    expect(body.q).toBe(provider.toUpperCase().replace("0X", "0x"));
    expect(body.events.length).toBeGreaterThan(0);
    expect(body.events.every((e: { counterparty_address: string }) => e.counterparty_address === provider)).toBe(true);
    expect(body.addresses).toEqual([
      { address: provider, label: seeded.keys.routedServices[0]!.provider.label, category: "provider", source: "registry:api-test.json" },
    ]);
  });

  it("finds entities by id/label (prefix ranked first) and by wallet prefix", async () => {
    const byLabel = await ok("/api/search?q=API", "/api/search");
    expect(byLabel.body.entities.map((e: { id: string }) => e.id)).toEqual(["search-api-mpp", "weather-api-mpp"]);
    const prefixFirst = await ok("/api/search?q=we", "/api/search");
    expect(prefixFirst.body.entities[0].id).toBe("weather-api-mpp");
    const wallet = seeded.keys.agents[1]!.address;
    const byWallet = await ok(`/api/search?q=${wallet.slice(0, 10)}`, "/api/search");
    expect(byWallet.body.entities.map((e: { id: string }) => e.id)).toContain("demo-agent-beta");
    expect(byWallet.body.entities[0]).toEqual({ id: "demo-agent-beta", label: "Demo agent Beta", category: "agent", kind: "agent", wallets: [wallet] });
  });

  it("treats % and _ literally", async () => {
    expect((await ok(`/api/search?q=${encodeURIComponent("100%_")}`, "/api/search")).body.addresses.map((a: { address: string }) => a.address)).toEqual([
      WILDCARD_LABEL.address,
    ]);
    expect((await ok(`/api/search?q=${encodeURIComponent("%%")}`, "/api/search")).body).toEqual({ q: "%%", events: [], entities: [], addresses: [] });
    expect((await ok(`/api/search?q=${encodeURIComponent("__")}`, "/api/search")).body.entities).toEqual([]);
  });

  it("400 invalid_query for short, long or control-character queries", async () => {
    for (const q of ["", "a", "  a  ", "x".repeat(201), "ab%00", "a\nb"]) {
      await fails(`/api/search?q=${q.includes("%") ? q : encodeURIComponent(q)}`, "/api/search", 400, "invalid_query");
    }
    await fails("/api/search", "/api/search", 400, "invalid_query");
    expect((await ok(`/api/search?q=${"x".repeat(200)}`, "/api/search")).body.entities).toEqual([]);
  });
});

describe("HTTP behaviour", () => {
  it("answers CORS preflight on every /api path", async () => {
    for (const path of ["/api/dashboard", "/api/services/weather-api-mpp", "/api/search"]) {
      const res = await fetch(t.url + path, { method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "GET" } });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    }
  });

  it("404 not_found for unknown paths, 405 method_not_allowed for other methods", async () => {
    await fails("/api/nope", null, 404, "not_found");
    await fails("/api", null, 404, "not_found");
    await fails("/api/services/a/b/c", null, 404, "not_found");
    await fails("/nope", null, 404, "not_found");
    const res = await fails("/api/dashboard", null, 405, "method_not_allowed", { method: "POST", body: "{}" });
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    await fails("/api/events/1", null, 405, "method_not_allowed", { method: "DELETE" });
  });

  it("HEAD works like GET without a body; a trailing slash is ignored", async () => {
    const head = await fetch(`${t.url}/api/services`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    await ok("/api/services/", "/api/services");
  });

  it("keeps /healthz and /readyz", async () => {
    expect((await getJson(t.url, "/healthz")).body).toEqual({ ok: true });
    const ready = await getJson(t.url, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ok: true, database: "ok", indexer: { stream: "tempo-31337" } });
  });
});
