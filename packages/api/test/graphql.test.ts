import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, gql } from "./support/http.ts";
import type { SeededLedger } from "./support/seedDevnetLedger.ts";
import { startSeededApp, type SeededApp } from "./support/seededApp.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// GraphQL over the same devnet-built ledger: the same numbers as REST (both call the services), cursor pagination,
// per-request batching (a constant number of SQL statements however many entities), graphql-armor limits, typed
// error codes and masked unexpected errors.

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

const EVENT_FIELDS = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei
  tokenAddress txHash logIndex sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl
  attribution clientFingerprint clientLabel channelId`;

/** A REST Event row in GraphQL's camelCase form (and logIndex from the database). */
function camelEvent(row: Record<string, unknown>, logIndex: number) {
  const camel = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()), v]));
  return { ...camel, id: String(row.id), logIndex };
}

async function data(query: string, variables?: Record<string, unknown>) {
  const res = await gql(t.url, query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data;
}

async function errorOf(query: string, variables?: Record<string, unknown>) {
  const res = await gql(t.url, query, variables);
  expect(res.status).toBeLessThan(500);
  expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
  return res.body.errors[0] as { message: string; extensions?: { code?: string } };
}

describe("same data as REST", () => {
  it("dashboard of every window", async () => {
    for (const w of ["24h", "7d", "30d", "all"]) {
      const rest = (await getJson(t.url, `/api/dashboard?w=${w}`)).body;
      const { dashboard } = await data(
        `query($w: String!) { dashboard(window: $w) { window windowHours txCount agentsActive amountSumWei providersDetected
           topServices { id label category txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } } topAgents { id label category txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } }
           topProviders { key pattern address fingerprint label txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } } recentEvents { id }
           byToken { tokenAddress symbol decimals currency txCount amountSumWei } } }`,
        { w },
      );
      const { recentEvents, window, ...aggregates } = dashboard;
      const { recentEvents: restEvents, ...restAggregates } = rest;
      expect(window).toBe(w);
      expect(aggregates).toEqual(restAggregates);
      expect(recentEvents.map((e: { id: string }) => Number(e.id))).toEqual(restEvents.map((e: { id: number }) => e.id));
    }
  });

  it("services and agents lists", async () => {
    for (const [field, path] of [
      ["services", "/api/services"],
      ["agents", "/api/agents"],
    ] as const) {
      const rest = (await getJson(t.url, path)).body;
      const out = await data(`{ ${field} { id label category kind active wallets txCount24h amountSumWei24h txCount7d amountSumWei7d
        byToken24h { tokenAddress symbol decimals currency txCount amountSumWei } byToken7d { tokenAddress symbol decimals currency txCount amountSumWei } lastEventAt } }`);
      expect(out[field]).toEqual(rest);
    }
  });

  it("service detail incl. trend, totals, recent events and gateway providers", async () => {
    const rest = (await getJson(t.url, "/api/services/tempo-gateway-mpp")).body;
    const { service } = await data(`{ service(id: "tempo-gateway-mpp") {
      id label category kind active wallets
      totals { txCount amountSumWei feeCount feeSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } feesByToken { tokenAddress symbol decimals currency txCount amountSumWei } }
      trend { day txCount amountSumWei byToken { tokenAddress symbol decimals currency txCount amountSumWei } }
      recentEvents { items { ${EVENT_FIELDS} } nextCursor }
      providers(first: 100) { items { key pattern address fingerprint label txCount amountSumWei firstSeenAt lastSeenAt } nextCursor } } }`);
    const logIndex = new Map((await sql.query("SELECT id::int, log_index FROM agent_events")).rows.map((r) => [r.id, r.log_index]));
    expect(service).toEqual({
      id: rest.id,
      label: rest.label,
      category: rest.category,
      kind: rest.kind,
      active: rest.active,
      wallets: rest.wallets,
      totals: rest.totals,
      trend: rest.trend,
      recentEvents: { items: rest.recentEvents.map((e: { id: number }) => camelEvent(e, logIndex.get(e.id))), nextCursor: rest.nextCursor },
      // (Provider.byToken is compared with REST in explorer.api.test.ts: 100 providers × byToken exceed the cost limit here)
      providers: { items: rest.providers.map(({ byToken: _t, ...p }: { byToken: unknown }) => p), nextCursor: null },
    });
    const { agent, notAgent, notService } = await data(`{ agent(id: "demo-agent-alpha") { id providers { nextCursor } }
      notAgent: agent(id: "weather-api-mpp") { id } notService: service(id: "demo-agent-alpha") { id } }`);
    expect(agent).toEqual({ id: "demo-agent-alpha", providers: null });
    expect(notAgent).toBeNull();
    expect(notService).toBeNull();
  });

  it("event with related events and its entity; unknown id is null", async () => {
    const { rows } = await sql.query("SELECT id::int FROM agent_events WHERE agent_id = 'demo-agent-gamma' AND kind = 'payment_sent' LIMIT 1");
    const rest = (await getJson(t.url, `/api/events/${rows[0].id}`)).body;
    const { event, missing } = await data(
      `query($id: ID!) { event(id: $id) { ${EVENT_FIELDS} relatedEvents { id } entity { id label } session { channelId } }
      missing: event(id: "999999") { id } }`,
      { id: String(rows[0].id) },
    );
    const { related_events, log_index, session, ...row } = rest;
    expect({ ...event, relatedEvents: undefined, entity: undefined, session: undefined }).toEqual({
      ...camelEvent(row, log_index),
      relatedEvents: undefined,
      entity: undefined,
      session: undefined,
    });
    expect([event.session, session]).toEqual([null, null]); // a v0.1 row (session rows: events.v03.test.ts)
    expect(event.relatedEvents.map((e: { id: string }) => Number(e.id))).toEqual(related_events.map((e: { id: number }) => e.id));
    expect(event.entity).toEqual({ id: "demo-agent-gamma", label: "Demo agent Gamma" });
    expect(missing).toBeNull();
  });

  it("search", async () => {
    for (const q of ["API", "demo", seeded.keys.routedServices[0]!.provider.address, "0x"]) {
      const rest = (await getJson(t.url, `/api/search?q=${encodeURIComponent(q)}`)).body;
      const { search } = await data(
        `query($q: String!) { search(q: $q) { q events { items { id } } entities { items { id label category kind wallets } }
        addresses { items { address label category source } } } }`,
        { q },
      );
      expect(search.q).toBe(rest.q);
      expect(search.events.items.map((e: { id: string }) => Number(e.id))).toEqual(rest.events.map((e: { id: number }) => e.id));
      expect(search.entities.items).toEqual(rest.entities);
      expect(search.addresses.items).toEqual(rest.addresses);
    }
  });
});

describe("pagination", () => {
  it("an entity's recent events page through every row exactly once", async () => {
    const all = (await sql.query("SELECT id::text FROM agent_events a WHERE agent_id = 'demo-agent-alpha' ORDER BY a.id DESC")).rows.map((r) => r.id);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const out: { agent: { recentEvents: { items: { id: string }[]; nextCursor: string | null } } } = await data(
        `query($after: String) { agent(id: "demo-agent-alpha") { recentEvents(first: 7, after: $after) { items { id } nextCursor } } }`,
        { after },
      );
      seen.push(...out.agent.recentEvents.items.map((e) => e.id));
      after = out.agent.recentEvents.nextCursor;
    } while (after);
    expect(seen).toEqual(all);
  });

  it("providers page by amount descending; search lists page too", async () => {
    const keys: string[] = [];
    let after: string | null = null;
    do {
      const out: { providers: { items: { key: string }[]; nextCursor: string | null } } = await data(
        `query($after: String) { providers(first: 2, after: $after) { items { key } nextCursor } }`,
        { after },
      );
      keys.push(...out.providers.items.map((p) => p.key));
      after = out.providers.nextCursor;
    } while (after);
    const { providers } = await data(`{ providers(first: 100) { items { key } nextCursor } }`);
    expect(keys).toEqual(providers.items.map((p: { key: string }) => p.key));
    expect(keys).toHaveLength(6);

    const first = await data(`{ search(q: "demo") { entities(first: 2) { items { id } nextCursor } } }`);
    const second = await data(`query($a: String) { search(q: "demo") { entities(first: 2, after: $a) { items { id } nextCursor } } }`, {
      a: first.search.entities.nextCursor,
    });
    expect([...first.search.entities.items, ...second.search.entities.items].map((e: { id: string }) => e.id)).toEqual([
      "demo-agent-alpha",
      "demo-agent-beta",
      "demo-agent-gamma",
      "demo-session-escrow",
    ]); // search finds escrows too
    expect(second.search.entities.nextCursor).toBeNull();
  });
});

describe("batching", () => {
  it("nested entity fields cost a constant number of SQL statements, however many entities are listed", async () => {
    const query = `{ services { id wallets txCount24h amountSumWei7d lastEventAt totals { txCount } trend { day } recentEvents(first: 3) { items { id entity { id wallets } relatedEvents { id } } } } }`;
    const count = async (q: string) => {
      const before = t.queries();
      await data(q);
      return t.queries() - before;
    };
    const many = await count(query);
    const one = await count(
      `{ service(id: "weather-api-mpp") { id wallets txCount24h amountSumWei7d lastEventAt totals { txCount } trend { day } recentEvents(first: 3) { items { id entity { id wallets } relatedEvents { id } } } } }`,
    );
    const { services } = await data(`{ services { id } }`);
    expect(services.length).toBeGreaterThanOrEqual(5);
    expect(many).toBeLessThanOrEqual(12);
    expect(one).toBeLessThanOrEqual(12);
    // Listing 5+ services does not multiply statements (no N+1): the list itself adds only its own batched queries.
    expect(many - one).toBeLessThanOrEqual(4);
  });
});

describe("same SQL as REST", () => {
  const EVENT_ROW = EVENT_FIELDS.replace("logIndex", "");
  const count = async (run: () => Promise<unknown>) => {
    const before = t.queries();
    await run();
    return t.queries() - before;
  };

  it("a detail with rows (and the gateway's providers) and a search issue the statements of their REST paths", async () => {
    const detail = `query($id: ID!) { service(id: $id) { id label category kind active wallets
      totals { txCount amountSumWei feeCount feeSumWei byToken { amountSumWei } feesByToken { amountSumWei } }
      trend { day txCount amountSumWei byToken { amountSumWei } } recentEvents(first: 50) { items { id ts agentId kind amountWei txHash } nextCursor }
      providers(first: 100) { items { key pattern label amountSumWei firstSeenAt lastSeenAt } nextCursor } } }`; // (under the default cost limit)
    for (const id of ["weather-api-mpp", "tempo-gateway-mpp", "unknown-mpp"]) {
      const rest = await count(() => getJson(t.url, `/api/services/${id}`));
      const graphql = await count(() => data(detail, { id }));
      expect(graphql, id).toBe(rest);
    }
    const search = `query($q: String!) { search(q: $q) { q events(first: 20) { items { ${EVENT_ROW} } nextCursor }
      entities(first: 20) { items { id label category kind wallets } nextCursor } addresses(first: 20) { items { address label category source } nextCursor } } }`;
    const wallet = seeded.registry.entities.find((e) => e.id === "weather-api-mpp")!.wallets[0]!;
    for (const q of [wallet, "demo"]) {
      const rest = await count(() => getJson(t.url, `/api/search?q=${q}`));
      expect(await count(() => data(search, { q })), q).toBe(rest);
    }
  });
});

describe("errors and limits", () => {
  it("typed errors carry the REST codes in extensions.code", async () => {
    expect((await errorOf(`{ dashboard(window: "1h") { txCount } }`)).extensions?.code).toBe("invalid_window");
    expect((await errorOf(`{ search(q: " a ") { q } }`)).extensions?.code).toBe("invalid_query");
    expect((await errorOf(`{ event(id: "abc") { id } }`)).extensions?.code).toBe("invalid_id");
    expect((await errorOf(`{ providers(after: "nope") { nextCursor } }`)).extensions?.code).toBe("invalid_cursor");
    expect((await errorOf(`{ providers(first: 1000) { nextCursor } }`)).extensions?.code).toBe("invalid_limit");
    expect((await errorOf(`{ agent(id: "demo-agent-alpha") { recentEvents(after: "bad!") { nextCursor } } }`)).extensions?.code).toBe("invalid_cursor");
  });

  it("unknown fields are validation errors without suggestions", async () => {
    const e = await errorOf(`{ servics { id } }`);
    expect(e.message).toMatch(/Cannot query field/);
    expect(e.message).not.toMatch(/Did you mean/);
  });

  it("rejects over-deep, over-aliased, over-long and too costly operations", async () => {
    const deep = `{ dashboard { recentEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } } }`;
    expect((await errorOf(deep)).message).toMatch(/depth/i);
    const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: services { id }`).join(" ")} }`;
    expect((await errorOf(aliases)).message).toMatch(/alias/i);
    const tokens = `{ services { ${Array.from({ length: 2500 }, () => "id").join(" ")} } }`;
    expect((await errorOf(tokens)).message).toMatch(/token/i);
    const costly = `{ ${Array.from({ length: 14 }, (_, i) => `a${i}: agents { recentEvents { items { relatedEvents { entity { recentEvents { items { ${EVENT_FIELDS} } } } } } } }`).join(" ")} }`;
    expect((await errorOf(costly)).message).toMatch(/cost/i);
  });

  it("masks unexpected errors as internal_error without leaking the cause", async () => {
    const failing = await startTestApp(db.url, { now: () => seeded.now });
    const pool = failing.pool;
    const original = pool.query.bind(pool);
    (pool as unknown as { query: unknown }).query = (text: unknown, ...rest: unknown[]) =>
      typeof text === "string" && text.includes("entity_wallets")
        ? Promise.reject(new Error("secret connection detail"))
        : (original as (...a: unknown[]) => unknown)(text, ...rest);
    try {
      const res = await gql(failing.url, `{ services { id wallets } }`);
      expect(res.status).toBe(200);
      expect(res.body.errors[0]).toMatchObject({ message: "Unexpected error.", extensions: { code: "internal_error" } });
      expect(JSON.stringify(res.body)).not.toContain("secret");
    } finally {
      await failing.close();
    }
  });

  it("malformed requests are 4xx, never 500", async () => {
    const bad = await getJson(t.url, "/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(bad.status).toBe(400);
    const syntax = await gql(t.url, "{ services { id ");
    expect(syntax.status).toBeLessThan(500);
    expect(syntax.body.errors[0].message).toMatch(/Syntax Error/);
  });

  it("serves GraphiQL to browsers and answers CORS", async () => {
    const page = await fetch(`${t.url}/graphql`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/GraphiQL/i);
    const pre = await fetch(`${t.url}/graphql`, { method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "POST" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    const post = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { origin: "https://example.org", "content-type": "application/json" },
      body: JSON.stringify({ query: "{ services { id } }" }),
    });
    expect(post.headers.get("access-control-allow-origin")).toBe("*");
    expect(post.headers.get("access-control-allow-credentials")).toBeNull();
  });
});
