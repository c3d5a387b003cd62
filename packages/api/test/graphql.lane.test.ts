import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGraphqlHandler } from "../src/graphql/createGraphqlHandler.ts";
import { createServices } from "../src/services/createServices.ts";
import { countingPool } from "./support/countingPool.ts";
import { seedDevnetLedger, type SeededLedger } from "./support/seedDevnetLedger.ts";
import { silentLog } from "./support/startTestApp.ts";

// The /graphql handler's direct JSON lane, graphql-jit and the response cache, over a real devnet-built ledger and
// real HTTP: compiled answers equal graphql-js's (data and errors with their codes), the lane answers exactly as yoga
// does, and cached dashboard answers equal fresh ones, expire after the TTL (injected clock), and are never used for
// operations that select other root fields, for mutations, or for errors.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let seeded: SeededLedger;
let pool: pg.Pool;
const servers: Server[] = [];

/** A /graphql handler on its own loopback server. */
async function serve(options: { jit?: boolean; ttlMs?: number; clock?: () => number; dashboardTtlMs?: number } = {}) {
  const sql = countingPool(pool);
  const services = createServices({ db: sql.db, now: () => seeded.now, dashboardCacheTtlMs: options.dashboardTtlMs ?? 0 });
  const handler = createGraphqlHandler({
    services,
    log: silentLog,
    limits: { maxCost: 10_000 },
    jit: options.jit,
    responseCache: options.ttlMs === undefined ? undefined : { ttlMs: options.ttlMs, clock: options.clock },
  });
  let bodiesRead = 0;
  const server = createServer((req, res) => {
    req.once("end", () => bodiesRead++);
    void handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return { url, sql, services, bodiesRead: () => bodiesRead };
}

/**
 * Sends `n` requests at once while the server's SQL is held, and lets the SQL go only once the server has read every
 * body (and run what follows synchronously): the requests are all in flight together, whatever the machine's speed.
 */
async function together(s: Awaited<ReturnType<typeof serve>>, n: number, send: () => Promise<Raw>): Promise<Raw[]> {
  let release!: () => void;
  s.sql.hold(new Promise<void>((resolve) => (release = resolve)));
  const before = s.bodiesRead();
  const answers = Promise.all(Array.from({ length: n }, send));
  while (s.bodiesRead() - before < n) await new Promise((resolve) => setTimeout(resolve, 2));
  await new Promise((resolve) => setImmediate(resolve));
  s.sql.hold(null);
  release();
  return answers;
}

interface Raw {
  status: number;
  type: string | null;
  text: string;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The same operation as a GET: always answered by yoga itself (never the JSON lane). */
async function viaYoga(url: string, query: string, variables?: Record<string, unknown>): Promise<Raw> {
  const qs = new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) });
  const res = await fetch(`${url}?${qs}`, { headers: { accept: "application/json" } });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

beforeAll(async () => {
  db = await createTestDatabase();
  seeded = await seedDevnetLedger(db.url);
  pool = createPgPool(db.url, { max: 5, applicationName: "agent-ledger-api-test" });
  pool.on("error", () => {});
}, 120_000);

afterAll(async () => {
  for (const s of servers) s.closeAllConnections(), s.close();
  await pool?.end();
  await seeded?.stop();
  await db?.drop();
});

const EVENT = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei
  tokenAddress txHash logIndex sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl`;
const TOP = "id label category txCount amountSumWei";
// The bench's operations (bench/api.bench.ts): the fields of the REST bodies.
const DASHBOARD = `query Dashboard($w: String!) { dashboard(window: $w) { windowHours txCount agentsActive amountSumWei providersDetected
  topServices { ${TOP} } topAgents { ${TOP} } topProviders { key pattern address fingerprint label txCount amountSumWei } recentEvents { ${EVENT} } } }`;
const SERVICE = `query Service($id: ID!, $after: String) { service(id: $id) { id label category kind active wallets
  totals { txCount amountSumWei feeCount feeSumWei } trend { day txCount amountSumWei }
  recentEvents(first: 50, after: $after) { items { ${EVENT} relatedEvents { id kind agentId } entity { id wallets lastEventAt } } nextCursor }
  providers(first: 100) { items { key pattern address fingerprint label txCount amountSumWei firstSeenAt lastSeenAt } nextCursor } } }`;
const SEARCH = `query Search($q: String!) { search(q: $q) { q events(first: 20) { items { ${EVENT} } nextCursor }
  entities(first: 20) { items { id label category kind wallets } nextCursor } addresses(first: 20) { items { address label category source } nextCursor } } }`;

/** Bench operations and error cases: [query, variables]. */
function cases(): [string, Record<string, unknown>][] {
  const wallet = seeded.registry.entities.find((e) => e.id === "weather-api-mpp")!.wallets[0]!;
  return [
    [DASHBOARD, { w: "all" }],
    [DASHBOARD, { w: "24h" }],
    [SERVICE, { id: "tempo-gateway-mpp" }],
    [SERVICE, { id: "weather-api-mpp" }],
    [SERVICE, { id: "no-such-mpp" }],
    [SEARCH, { q: wallet }],
    [SEARCH, { q: "demo" }],
    [`{ services { id label wallets txCount24h amountSumWei24h txCount7d amountSumWei7d lastEventAt } agents { id wallets lastEventAt } }`, {}],
    // errors, with their codes
    [DASHBOARD, { w: "1h" }],
    [SEARCH, { q: " a " }],
    [SERVICE, { id: "weather-api-mpp", after: "not-a-cursor" }],
    [`{ providers(first: 1000) { nextCursor } }`, {}],
    [`{ event(id: "abc") { id } }`, {}],
    [DASHBOARD, { w: 5 }],
    [`query($x: Uint256) { ledgerEvents: services { id } dashboard(window: "7d") { txCount } a: search(q: "demo") { q } b: __typename } `, { x: "-1" }],
  ];
}

describe("graphql-jit", () => {
  it("answers the bench's queries exactly like graphql-js, errors and codes included", async () => {
    const jit = await serve();
    const plain = await serve({ jit: false });
    for (const [query, variables] of cases()) {
      const a = await post(jit.url, { query, variables });
      const b = await post(plain.url, { query, variables });
      // the same status, type and JSON (graphql-jit writes `data` before `errors`: key order aside)
      expect({ ...a, text: JSON.parse(a.text) }, query.slice(0, 60) + JSON.stringify(variables)).toEqual({ ...b, text: JSON.parse(b.text) });
      expect(a.status).toBeLessThan(500);
    }
    const codes = async (query: string, variables: Record<string, unknown>) =>
      (JSON.parse((await post(jit.url, { query, variables })).text).errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
    expect(await codes(DASHBOARD, { w: "1h" })).toEqual(["invalid_window"]);
    expect(await codes(SEARCH, { q: " a " })).toEqual(["invalid_query"]);
    expect(await codes(SERVICE, { id: "weather-api-mpp", after: "not-a-cursor" })).toEqual(["invalid_cursor"]);
    expect(await codes(`{ event(id: "abc") { id } }`, {})).toEqual(["invalid_id"]);
    expect(JSON.parse((await post(jit.url, { query: SERVICE, variables: { id: "no-such-mpp" } })).text)).toEqual({ data: { service: null } });
  });

  it("runs the named operation of a document with several (the jit plugin keeps one compiled query per document)", async () => {
    const jit = await serve();
    const plain = await serve({ jit: false });
    const two = `query A { services { id } } query B { agents { id } }`;
    for (const operationName of ["A", "B", "A"]) {
      const answer = await post(jit.url, { query: two, operationName });
      expect(Object.keys(JSON.parse(answer.text).data)).toEqual([operationName === "A" ? "services" : "agents"]);
      expect(answer).toEqual(await post(plain.url, { query: two, operationName }));
    }
  });

  it("masks unexpected resolver errors as internal_error, as graphql-js does", async () => {
    const jit = await serve();
    jit.sql.failNext("entity_wallets");
    const body = JSON.parse((await post(jit.url, { query: `{ services { id wallets } }` })).text);
    expect(body.errors[0]).toMatchObject({ message: "Unexpected error.", extensions: { code: "internal_error" } });
    expect(JSON.stringify(body)).not.toContain("secret");
  });
});

describe("direct JSON lane", () => {
  it("answers exactly as yoga does (status, content type, body)", async () => {
    const { url } = await serve();
    for (const [query, variables] of cases()) {
      const lane = await post(url, { query, variables });
      const yoga = await viaYoga(url, query, variables);
      expect(lane, query.slice(0, 60) + JSON.stringify(variables)).toEqual(yoga);
    }
  });

  it("leaves everything else to yoga: bad bodies, parse/validation errors, armor limits, batching, other media types", async () => {
    const { url } = await serve();
    const bad = await post(url, "[");
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).errors[0].extensions.code).toBe("bad_request");
    expect((await post(url, [{ query: "{ __typename }" }])).status).toBe(400);
    expect((await post(url, { query: "{ __typename }", foo: 1 })).status).toBe(400);
    expect((await post(url, { query: 1 })).status).toBe(400);
    const syntax = JSON.parse((await post(url, { query: "{ services { id " })).text);
    expect(syntax.errors[0].extensions.code).toBe("graphql_parse_failed");
    // twice: the second answer comes from yoga's parse-error cache and still carries the code
    expect(JSON.parse((await post(url, { query: "{ services { id " })).text)).toEqual(syntax);
    const unknown = JSON.parse((await post(url, { query: "{ servics { id } }" })).text);
    expect(unknown.errors[0].extensions.code).toBe("graphql_validation_failed");
    expect(unknown.errors[0].message).not.toMatch(/Did you mean/);
    const deep = `{ dashboard { recentEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } } }`;
    const depth = await post(url, { query: deep });
    // armor's limits: 400 query_too_complex, extensions.limit naming the limit (issue 14: they had no code, status 200)
    expect(depth.status).toBe(400);
    expect(JSON.parse(depth.text).errors[0]).toMatchObject({
      message: expect.stringMatching(/depth/i),
      extensions: { code: "query_too_complex", limit: "max_depth" },
    });
    const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: services { id }`).join(" ")} }`;
    expect(JSON.parse((await post(url, { query: aliases })).text).errors[0]).toMatchObject({
      message: expect.stringMatching(/alias/i),
      extensions: { code: "query_too_complex", limit: "max_aliases" },
    });
    const tokens = await post(url, { query: `{ services { ${Array.from({ length: 2500 }, () => "id").join(" ")} } }` });
    expect(tokens.status, tokens.text).toBe(400);
    expect(JSON.parse(tokens.text).errors[0]).toMatchObject({
      message: expect.stringMatching(/token/i),
      extensions: { code: "query_too_complex", limit: "max_tokens" },
    });
    const graphqlResponse = await post(url, { query: "{ __typename }" }, { accept: "application/graphql-response+json" });
    expect(graphqlResponse).toMatchObject({ status: 200, type: "application/graphql-response+json; charset=utf-8" });
    expect((await post(url, "x".repeat(100_001))).status).toBe(413);
    expect((await post(url, "")).status).toBe(400);
  });
});

describe("response cache (dashboard, TTL of the dashboard cache)", () => {
  const query = DASHBOARD;
  const variables = { w: "all" };

  it("answers repeated dashboard operations from the cache: equal to a fresh answer, no SQL, until the TTL passes", async () => {
    let now = 0;
    const cached = await serve({ ttlMs: 5_000, clock: () => now });
    const fresh = await serve();
    const first = await post(cached.url, { query, variables });
    expect(JSON.parse(first.text).errors).toBeUndefined();
    expect(first).toEqual(await post(fresh.url, { query, variables }));
    const statements = cached.sql.count();
    expect(statements).toBeGreaterThan(0);
    now = 4_999;
    // the same operation, differently formatted, with variables in another key order: one normalized key
    const reformatted = `# comment\n${query.replace(/ /g, "\n  ")}`;
    expect(await post(cached.url, { query: reformatted, variables, operationName: "Dashboard" })).toEqual(await post(cached.url, { query, variables }));
    expect(await post(cached.url, { query, variables })).toEqual(first);
    expect(cached.sql.count()).toBe(statements);
    // another window is another entry
    await post(cached.url, { query, variables: { w: "7d" } });
    expect(cached.sql.count()).toBeGreaterThan(statements);
    const afterOther = cached.sql.count();
    now = 5_001;
    expect(await post(cached.url, { query, variables })).toEqual(first);
    expect(cached.sql.count()).toBeGreaterThan(afterOther); // expired: computed again
  });

  it("fills the cache from fresh data, not from the services' dashboard cache: an answer is at most one TTL old", async () => {
    const cached = await serve({ ttlMs: 5_000, clock: () => 0, dashboardTtlMs: 60_000 });
    await cached.services.getDashboard("all"); // the services' cache is warm (and would be served for a minute)
    const before = cached.sql.count();
    const first = await post(cached.url, { query, variables });
    expect(cached.sql.count()).toBeGreaterThan(before); // computed for the response cache
    expect(JSON.parse(first.text).errors).toBeUndefined();
    // without the response cache (TTL 0) GraphQL shares the services' cache like REST does
    const shared = await serve({ ttlMs: 0, dashboardTtlMs: 60_000 });
    await shared.services.getDashboard("all");
    const warm = shared.sql.count();
    expect(await post(shared.url, { query, variables })).toEqual(first);
    expect(shared.sql.count()).toBe(warm);
  });

  it("shares one execution between concurrent identical requests", async () => {
    const cached = await serve({ ttlMs: 5_000, clock: () => 0 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(cached.url, { query, variables })));
    const statements = cached.sql.count();
    for (const a of answers) expect(a).toEqual(answers[0]);
    const once = await serve({ ttlMs: 5_000, clock: () => 0 });
    await post(once.url, { query, variables });
    expect(statements).toBe(once.sql.count());
  });

  it("is not used for operations that select other root fields, nor for mutations", async () => {
    const cached = await serve({ ttlMs: 5_000, clock: () => 0 });
    const mixed = `{ dashboard(window: "all") { txCount } services { id } }`;
    await post(cached.url, { query: mixed });
    const once = cached.sql.count();
    await post(cached.url, { query: mixed });
    expect(cached.sql.count()).toBe(2 * once);
    const nested = `{ dashboard(window: "all") { txCount } search(q: "demo") { q } }`;
    const a = await post(cached.url, { query: nested });
    expect(JSON.parse(a.text).data.search.q).toBe("demo");
    // a mutation is answered (here: unauthenticated) every time, never from the cache
    const mutation = `mutation { deleteWebhook(id: "00000000-0000-0000-0000-000000000000") { id } }`;
    const m1 = JSON.parse((await post(cached.url, { query: mutation })).text);
    expect(m1.errors[0].extensions.code).toBeDefined();
  });

  it("never keeps errors: a failed computation is answered once, the next request computes again", async () => {
    const cached = await serve({ ttlMs: 5_000, clock: () => 0 });
    cached.sql.failNext("ledger_activity");
    const failed = JSON.parse((await post(cached.url, { query, variables })).text);
    expect(failed.errors[0]).toMatchObject({ message: "Unexpected error.", extensions: { code: "internal_error" } });
    const ok = JSON.parse((await post(cached.url, { query, variables })).text);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.dashboard.windowHours).toBeGreaterThan(0);
    const invalid = await post(cached.url, { query, variables: { w: "1h" } });
    expect(JSON.parse(invalid.text).errors[0].extensions.code).toBe("invalid_window");
    expect(await post(cached.url, { query, variables: { w: "1h" } })).toEqual(invalid);
  });

  it("is off with a TTL of 0 (DASHBOARD_CACHE_TTL_MS=0)", async () => {
    const off = await serve({ ttlMs: 0, clock: () => 0 });
    await post(off.url, { query, variables });
    const once = off.sql.count();
    await post(off.url, { query, variables });
    expect(off.sql.count()).toBe(2 * once);
  });
});

describe("request coalescing (anonymous queries in flight, nothing kept)", () => {
  const variables = { id: "tempo-gateway-mpp" };

  /** SQL statements of one execution of `query` on a server of its own. */
  async function statementsOfOne(query: string, vars: Record<string, unknown>): Promise<number> {
    const once = await serve();
    await post(once.url, { query, variables: vars });
    return once.sql.count();
  }

  it("shares one execution between concurrent identical anonymous queries, and computes again afterwards", async () => {
    const one = await statementsOfOne(SERVICE, variables);
    expect(one).toBeGreaterThan(1);
    const s = await serve();
    const answers = await together(s, 5, () => post(s.url, { query: SERVICE, variables }));
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(JSON.parse(answers[0]!.text).data.service.id).toBe("tempo-gateway-mpp");
    expect(s.sql.count()).toBe(one);
    // nothing is kept: the next request executes again
    expect(await post(s.url, { query: SERVICE, variables })).toEqual(answers[0]);
    expect(s.sql.count()).toBe(2 * one);
  });

  it("never shares between requests that carry credentials (Authorization or Cookie)", async () => {
    const one = await statementsOfOne(SERVICE, variables);
    const s = await serve();
    const credentials: Record<string, string>[] = [{ authorization: "Bearer 0123456789abcdef0123" }, { cookie: "al_session=x" }];
    for (const headers of credentials) {
      const before = s.sql.count();
      const answers = await together(s, 3, () => post(s.url, { query: SERVICE, variables }, headers));
      for (const a of answers) expect(JSON.parse(a.text).data.service.id).toBe("tempo-gateway-mpp");
      expect(s.sql.count() - before).toBe(3 * one);
    }
  });

  it("keys on the operation and its variables: different variables or operations are executed apart", async () => {
    const s = await serve();
    const [gateway, weather] = await Promise.all([
      post(s.url, { query: SERVICE, variables }),
      post(s.url, { query: SERVICE, variables: { id: "weather-api-mpp" } }),
    ]);
    expect(JSON.parse(gateway.text).data.service.id).toBe("tempo-gateway-mpp");
    expect(JSON.parse(weather.text).data.service.id).toBe("weather-api-mpp");
    // one document, two operations: the operation name picks the answer (also once the text is known)
    const two = `query A { services { id } } query B { agents { id } }`;
    for (let round = 0; round < 2; round++) {
      const [a, b] = await Promise.all([post(s.url, { query: two, operationName: "A" }), post(s.url, { query: two, operationName: "B" })]);
      expect(Object.keys(JSON.parse(a.text).data)).toEqual(["services"]);
      expect(Object.keys(JSON.parse(b.text).data)).toEqual(["agents"]);
    }
  });

  it("hands an answer with errors to the requests waiting for it, then forgets it", async () => {
    const s = await serve();
    s.sql.failNext("entity_activity");
    const failed = await together(s, 3, () => post(s.url, { query: SERVICE, variables }));
    for (const f of failed) {
      expect(f).toEqual(failed[0]);
      expect(JSON.parse(f.text).errors[0]).toMatchObject({ message: "Unexpected error.", extensions: { code: "internal_error" } });
    }
    const ok = JSON.parse((await post(s.url, { query: SERVICE, variables })).text);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.service.totals).toBeDefined();
  });
});
