import { randomBytes, randomUUID } from "node:crypto";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../src/buildApp.ts";
import { getNamedType, isInputObjectType, isLeafType, isNonNullType, isObjectType, type GraphQLField, type GraphQLInputType } from "graphql/index.js";
import { buildSchema } from "../src/schema/index.ts";
import { listRoutes, ROUTE_TABLE } from "./support/routeList.ts";
import { BAD_BODIES, BAD_STRINGS, BAD_VALUES, leafPaths, replaceAt, toJsonText, urlEncode } from "./support/fuzzValues.ts";
import { getJson, gql, openapi } from "./support/http.ts";
import { openapiProblems } from "./support/openapiCheck.ts";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { silentLog } from "./support/startTestApp.ts";
import { pino } from "pino";
import { registerUser, SPONSOR_KEY } from "./support/walletApp.ts";
import { createTestUser, type TestUser } from "./support/walletFixtures.ts";
import { freePort } from "./support/freePort.ts";

// No input produces a 5xx (issue 14, point 3). Two parts, on one real app (buildApp on loopback: REST, wallet with a
// devnet, webhooks, live feed) over a real test database:
// - the read paths' documented answers: each bad input gets its exact 4xx and code;
// - a table-driven fuzz over EVERY route of the JSON surfaces of the route table (routes/mountRoutes.ts: read,
//   wallet, webhooks) and every GraphQL field that takes arguments: NUL and other control characters,
//   lone surrogates, huge strings, wrong types, overflowing numbers, bad cursors, bad bodies and credentials, each
//   put in every path parameter, query parameter and body field of a valid sample request. Every answer must be
//   < 500, and every 4xx must carry `{ error: { code, message } }` (GraphQL: every error an `extensions.code`).
//   A route or field without a sample in SAMPLES / GRAPHQL_SAMPLES fails "every route has a fuzz sample".

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let anvil: AnvilInstance;
let pool: pg.Pool;
let app: App;
const t = { url: "" };

const REGISTRY = {
  registry_version: 1,
  network: "devnet",
  entities: [
    { id: "demo-agent", label: "Demo agent", category: "agent", wallets: ["0x00000000000000000000000000000000000000a1"] },
    { id: "weather-api-mpp", label: "Weather", category: "service", wallets: ["0x00000000000000000000000000000000000000b2"] },
  ],
};

/** What the samples refer to: real sessions, a real subscription and delivery, a registered passkey, a pending pairing. */
interface Fixtures {
  user: TestUser;
  /** Users whose sessions a route ends (logout, revoke): they must not end the main user's. */
  throwaway: TestUser;
  subscriptionId: string;
  verifyToken: string;
  deliveryId: string;
  authn: SoftAuthenticator;
  pairing: { code: string; deviceId: string };
}
let fx: Fixtures;

beforeAll(async () => {
  db = await createTestDatabase();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(REGISTRY), "registry:fuzz.json");
  await registryDb.end();
  anvil = await startAnvil();
  pool = createPgPool(db.url, { max: 10, applicationName: "agent-ledger-fuzz-test" });
  pool.on("error", () => {});
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const masterKey = randomBytes(32);
  app = buildApp({
    pool,
    log: process.env.TEST_LOG_LEVEL ? pino({ level: process.env.TEST_LOG_LEVEL }) : silentLog,
    dashboardCacheTtlMs: 0,
    feed: { enabled: true },
    webhooks: { masterKey, production: false },
    wallet: {
      masterKey,
      production: false,
      publicBaseUrl: url,
      rpcUrl: anvil.url,
      sponsorPrivateKey: SPONSOR_KEY,
      receiptTimeoutMs: 3_000,
      // every rate limit off (0), in this run's own Redis keys: the fuzz must reach the validation behind them
      rateLimitPrefix: `al:rl:fuzz:${randomUUID()}`,
      startPerMinute: 0,
      codePerMinute: 0,
      codePerUserPerMinute: 0,
      webauthnOptionsPerMinute: 0,
      relayPerMinute: 0,
    },
  });
  await app.start(port, "127.0.0.1");
  t.url = url;

  const [user, throwaway] = await Promise.all([createTestUser(db.url), createTestUser(db.url)]);
  const created = await getJson(t.url, "/api/webhooks", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user.bearer}` },
    body: JSON.stringify({ callback_url: "http://127.0.0.1:9/hook", label: "fuzz", filters: { agent_id: "demo-agent" } }),
  });
  if (created.status !== 201) throw new Error(`webhook create: ${created.status} ${JSON.stringify(created.body)}`);
  const { rows } = await pool.query("SELECT id FROM webhook_deliveries WHERE subscription_id = $1", [created.body.id]);
  const authn = new SoftAuthenticator();
  await registerUser(t.url, authn, "fuzz passkey");
  const start = await getJson(t.url, "/api/wallet/device/start", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  if (start.status !== 200) throw new Error(`device/start: ${start.status} ${JSON.stringify(start.body)}`);
  fx = {
    user,
    throwaway,
    authn,
    subscriptionId: created.body.id,
    verifyToken: created.body.verify_token,
    deliveryId: rows[0].id,
    pairing: { code: start.body.code, deviceId: start.body.device_id },
  };
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await pool?.end();
  await anvil?.stop();
  await db?.drop();
});

const BAD_IDS = [
  "abc",
  "-1",
  "0",
  "1e3",
  "1.0",
  "+1",
  "0x10",
  " 1",
  "99999999999999999999999",
  "9223372036854775808",
  "%00",
  "%ff",
  "%E0%A4%A",
  "%",
  "1%00",
  "NaN",
  "Infinity",
];

const REST_CASES: [string, number, string][] = [
  ...BAD_IDS.map((id): [string, number, string] => [`/api/events/${id}`, 400, "invalid_id"]),
  ...BAD_IDS.flatMap((id): [string, number, string][] => [
    [`/api/agents/${id}`, 404, "not_found"],
    [`/api/services/${id}`, 404, "not_found"],
    [`/api/agents/${id}/events`, 404, "not_found"],
  ]),
  [`/api/agents/${"x".repeat(5000)}`, 404, "not_found"],
  ["/api/services/%2e%2e", 404, "not_found"],
  ["/api/events/1", 404, "not_found"],
  ["/api/events/9223372036854775807", 404, "not_found"],
  ...["1h", "", "24", "ALL", "%00", "7d%00", "30d%20", "x".repeat(3000)].map((w): [string, number, string] => [`/api/dashboard?w=${w}`, 400, "invalid_window"]),
  ...["", "a", "%20%20a%20", "%00%00", "ab%00", "%0a%0d", "x".repeat(201), "%E2%80%A8".repeat(1)].map((q): [string, number, string] => [
    `/api/search?q=${q}`,
    400,
    "invalid_query",
  ]),
  ["/api/search", 400, "invalid_query"],
  ["/api/search?q", 400, "invalid_query"],
  ["/api/agents/x/events?cursor=%00", 400, "invalid_cursor"],
  ["/api/agents/x/events?limit=1e3", 400, "invalid_limit"],
  // a provider key is validated before any query: a NUL byte once reached PostgreSQL (22021) and answered 500
  ["/api/series?w=24h&bucket=hour&provider=%00", 400, "invalid_query"],
  ["/api/series?provider=0x%00", 400, "invalid_query"],
  [`/api/series?provider=0x${"a".repeat(39)}%00`, 400, "invalid_query"],
  ["/api/series?provider=0x12", 400, "invalid_query"],
  ["/api/series?provider=", 400, "invalid_query"],
  ["/api/series?entity=a%00b", 404, "not_found"],
  ["/api/nope", 404, "not_found"],
  ["/api//services", 404, "not_found"],
  ["/api/events", 404, "not_found"],
  ["/api/events/", 404, "not_found"],
  ["/%00", 404, "not_found"],
];

const REST_OK = [
  "/api/search?q=%25%25",
  "/api/search?q=__",
  "/api/search?q=%5C%5C",
  "/api/search?q=%27%3B%20DROP%20TABLE%20entities%3B--",
  "/api/search?q=%F0%9F%98%80%F0%9F%98%80",
  "/api/search?q=%ff%fe",
  "/api/search?q=0x",
  "/api/search?q=0X" + "F".repeat(40),
  "/api/dashboard?w=all",
  "/api/dashboard?w=24h&w=bogus",
  `/api/series?w=7d&provider=%200X${"B2".repeat(20)}`,
  `/api/series?provider=0x${"0a".repeat(10)}`,
];

// Each check a route's declared input took over from its handler (routes/parseRouteInput.ts) answers the code, status and
// message the handler answered, in the handler's order (which of two faults answers first).
const DECLARED: [label: string, path: string, init: () => RequestInit, status: number, code: string, message: string][] = [
  ["series bucket", "/api/series?bucket=week", () => ({}), 400, "invalid_window", "bucket must be hour or day"],
  ["series bucket before the pair", "/api/series?bucket=week&entity=a&provider=b", () => ({}), 400, "invalid_window", "bucket must be hour or day"],
  ["series entity and provider", "/api/series?entity=a&provider=b", () => ({}), 400, "invalid_query", "give entity or provider, not both"],
  ["series entity before window", "/api/series?entity=nobody&w=1h", () => ({}), 404, "not_found", "no entity with id nobody"],
  ["series window", "/api/series?w=1h", () => ({}), 400, "invalid_window", "window must be one of 24h, 7d, 30d, all"],
  ["dashboard empty window", "/api/dashboard?w=", () => ({}), 400, "invalid_window", "window must be one of 24h, 7d, 30d, all"],
  ["previous window", "/api/dashboard/previous?w=1h&w=24h", () => ({}), 400, "invalid_window", "window must be one of 24h, 7d, 30d, all"],
  ["search short", "/api/search?q=a&q=abc", () => ({}), 400, "invalid_query", "q must be at least 2 characters"],
  ["events limit", "/api/agents/x/events?limit=0", () => ({}), 400, "invalid_limit", "limit must be an integer from 1 to 100"],
  ["events first limit wins", "/api/agents/nobody/events?limit=5&limit=0", () => ({}), 404, "not_found", 'no agent with id "nobody"'],
  [
    "deliveries limit before 404",
    "/api/webhooks/whs_nope/deliveries?limit=201",
    () => bearer(),
    400,
    "invalid_limit",
    "limit must be an integer from 1 to 200",
  ],
  ["deliveries cursor", "/api/webhooks/whs_nope/deliveries?cursor=zz", () => bearer(), 400, "invalid_cursor", "cursor is not one this API returned"],
  ["create not an object", "/api/webhooks", () => bearer("[]"), 400, "invalid_body", "the body must be a JSON object"],
  ["create unknown field", "/api/webhooks", () => bearer('{"x":1}'), 400, "invalid_body", 'unknown field "x"'],
  ["verify without token", "/api/webhooks/whs_nope/verify", () => json("{}"), 400, "invalid_body", "verify_token (string) is required"],
  ["recover not an object", "/api/webhooks/whs_nope/recover", () => bearer("5"), 400, "invalid_body", 'body must be a JSON object {"since": "<ISO 8601>"}'],
  ["recover unknown field", "/api/webhooks/whs_nope/recover", () => bearer('{"since":"x","y":1}'), 400, "invalid_body", "unknown field: y"],
  ["poll without device_id", "/api/wallet/device/poll?device_id=", () => ({}), 400, "invalid_device_id", "device_id is required"],
  ["poll odd device_id", "/api/wallet/device/poll?device_id=x", () => ({}), 404, "not_found", "unknown device_id"],
  [
    "payments limit",
    "/api/wallet/payments?limit=0",
    () => ({ headers: { authorization: `Bearer ${fx.user.bearer}` } }),
    400,
    "invalid_limit",
    "limit must be an integer 1–100",
  ],
  [
    "register display_name",
    "/api/wallet/webauthn/register/options",
    () => json('{"display_name":3}'),
    400,
    "invalid_body",
    "display_name must be a string of at most 64 characters without control characters",
  ],
  ["auth options not an object", "/api/wallet/webauthn/auth/options", () => json("[]"), 400, "invalid_body", "the body must be a JSON object"],
  [
    "start label",
    "/api/wallet/device/start",
    () => json('{"agent_label":5}'),
    400,
    "invalid_label",
    "agent_label must be a string of at most 100 characters without control characters",
  ],
];
const json = (body: string): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body });
const bearer = (body?: string): RequestInit => ({
  ...(body === undefined ? {} : { method: "POST", body }),
  headers: { "content-type": "application/json", authorization: `Bearer ${fx.user.bearer}` },
});

describe("declared input: every check the router took over answers as the handler did", () => {
  it.each(DECLARED)("%s: %s", async (_label, path, init, status, code, message) => {
    const res = await getJson(t.url, path, init());
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error: { code, message } } });
  });
});

describe("REST read paths: invalid input is the documented 4xx with the error body", () => {
  it.each(REST_CASES)("GET %s → %i %s", async (path, status, code) => {
    const res = await getJson(t.url, path);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  });

  it.each(REST_OK)("GET %s is answered (200)", async (path) => {
    const res = await getJson(t.url, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("query parameters are validated before the entity is looked up", async () => {
    expect((await getJson(t.url, "/api/agents/nobody/events?cursor=%%%")).body.error.code).toBe("invalid_cursor");
    expect((await getJson(t.url, "/api/agents/nobody/events?limit=50")).body.error.code).toBe("not_found");
  });

  it.each(["POST", "PUT", "PATCH", "DELETE"])("%s on a read path is 405", async (method) => {
    const res = await getJson(t.url, "/api/search?q=ab", { method, body: method === "DELETE" ? undefined : "x" });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe("method_not_allowed");
  });
});

const GRAPHQL_CASES: [string, string, Record<string, unknown>?][] = [
  ["malformed", "{ services { id "],
  ["empty", ""],
  ["unknown field", "{ nope }"],
  ["unknown argument", "{ services(first: 1) { id } }"],
  ["wrong argument type", "{ dashboard(window: 24) { txCount } }"],
  ["invalid window", `{ dashboard(window: "1h") { txCount } }`],
  ["invalid window with NUL", `{ dashboard(window: "24h\\u0000") { txCount } }`],
  ["bad event id", `{ event(id: "1e3") { id } }`],
  ["negative event id", `{ event(id: "-1") { id } }`],
  ["huge event id", `{ event(id: "99999999999999999999999") { id } }`],
  ["NUL event id", `query($id: ID!) { event(id: $id) { id } }`, { id: "\u0000" }],
  ["short query", `{ search(q: "a") { q } }`],
  ["long query", `{ search(q: "${"x".repeat(201)}") { q } }`],
  ["control character query", `query($q: String!) { search(q: $q) { q } }`, { q: "ab\u0000" }],
  ["bad cursor", `{ providers(after: "%%%") { nextCursor } }`],
  ["forged cursor", `{ providers(after: "eyJpZCI6IjEifQ") { nextCursor } }`],
  ["limit 0", `{ providers(first: 0) { nextCursor } }`],
  ["limit -1", `{ search(q: "ab") { entities(first: -1) { nextCursor } } }`],
  ["limit 101", `{ search(q: "ab") { events(first: 101) { nextCursor } } }`],
  ["variables of the wrong type", `query($w: String!) { dashboard(window: $w) { txCount } }`, { w: 5 }],
  ["missing variable", `query($w: String!) { dashboard(window: $w) { txCount } }`],
  [
    "over-deep",
    `{ dashboard { recentEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } } }`,
  ],
  ["too many aliases", `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: services { id }`).join(" ")} }`],
  ["introspection is allowed", "{ __schema { queryType { name } } }"],
  ["subscription root absent", "subscription { x }"],
  ["mutation absent", "mutation { x }"],
];

describe("GraphQL: invalid input is an error, never a 500 or a masked internal error", () => {
  it.each(GRAPHQL_CASES)("%s", async (name, query, variables) => {
    const res = await gql(t.url, query, variables);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
    if (name === "introspection is allowed") return expect(res.body.errors).toBeUndefined();
    expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
    for (const e of res.body.errors) expect(e.extensions?.code).not.toBe("internal_error");
  });

  it.each([
    ["NUL entity id", { id: "a\u0000b" }],
    ["huge entity id", { id: "x".repeat(10_000) }],
  ])("%s is simply not found (null)", async (_name, variables) => {
    const res = await gql(t.url, `query($id: ID!) { agent(id: $id) { id } service(id: $id) { id } }`, variables);
    expect(res.body).toEqual({ data: { agent: null, service: null } });
  });

  it.each(["\u0000", "0x\u0000", `0x${"a".repeat(39)}\u0000`, "nope"])(
    "activitySeries(providerKey: %j) is the field error invalid_query (was a masked internal_error)",
    async (providerKey) => {
      const res = await gql(t.url, 'query($k: String) { activitySeries(window: "24h", bucket: hour, providerKey: $k) { window } }', { k: providerKey });
      // an error inside a field: the partial result's 200 (docs/api.md, Errors), the code in extensions.code
      expect([res.status, res.body.data, res.body.errors?.map((e: { extensions: { code: string } }) => e.extensions.code)], JSON.stringify(res.body)).toEqual([
        200,
        null,
        ["invalid_query"],
      ]);
    },
  );

  it("a GET query string and a malformed JSON body are rejected cleanly", async () => {
    expect((await getJson(t.url, `/graphql?query=${encodeURIComponent("{ services { id } }")}`)).status).toBe(200);
    expect((await getJson(t.url, "/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: "[" })).status).toBe(400);
    expect((await getJson(t.url, "/graphql", { method: "PUT", body: "{}" })).status).toBeLessThan(500);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The fuzz over every operation of the OpenAPI document (/api/openapi.json): a path added to the document is walked
// (and fails "every operation has a fuzz sample" until it gets one); a route of a route table missing from the
// document fails "every route of the route tables is an operation of the document".

type Auth = "none" | "bearer" | "cookie" | "throwaway-bearer" | "throwaway-cookie";

/** A valid (or nearly valid) request per route: the fuzz replaces one part of it at a time. */
interface Sample {
  auth: Auth;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** Headers the operation needs (MCP's Accept) or documents as parameters (the feed's Last-Event-ID). */
  headers?: Record<string, string>;
  body?: unknown;
  /** Per request: a body (and cookie) that must be fresh each time (WebAuthn ceremonies consume their challenge). */
  prepare?: () => Promise<{ body: unknown; cookie?: string }>;
}

const SESSION_TOKEN = "0x20c0000000000000000000000000000000000000";

/** Inserts a WebAuthn challenge row the way the options endpoints do; returns the cookie and the challenge. */
async function challengeRow(purpose: "register" | "auth"): Promise<{ cookie: string; challenge: string; userId: string }> {
  const challenge = randomBytes(32).toString("base64url");
  const userId = randomUUID();
  const { rows } = await pool.query(
    "INSERT INTO webauthn_challenges (challenge, purpose, user_id, expires_at) VALUES ($1, $2, $3, now() + interval '5 minutes') RETURNING id",
    [challenge, purpose, purpose === "register" ? userId : null],
  );
  return { cookie: `al_webauthn=${rows[0].id}`, challenge, userId };
}

/** Samples by "METHOD /template" of the OpenAPI document (path parameters by their documented names). */
const SAMPLES: Record<string, (f: Fixtures) => Sample> = {
  "GET /api/dashboard": () => ({ auth: "none", query: { w: "24h" } }),
  "GET /api/services": () => ({ auth: "none" }),
  "GET /api/services/{id}": () => ({ auth: "none", params: { id: "weather-api-mpp" } }),
  "GET /api/services/{id}/events": () => ({ auth: "none", params: { id: "weather-api-mpp" }, query: { limit: "10" } }),
  "GET /api/agents": () => ({ auth: "none" }),
  "GET /api/agents/{id}": () => ({ auth: "none", params: { id: "demo-agent" } }),
  "GET /api/agents/{id}/events": () => ({ auth: "none", params: { id: "demo-agent" }, query: { limit: "10" } }),
  "GET /api/events/{id}": () => ({ auth: "none", params: { id: "1" } }),
  "GET /api/search": () => ({ auth: "none", query: { q: "demo" } }),
  "GET /api/openapi.json": () => ({ auth: "none" }),
  "GET /api/dashboard/previous": () => ({ auth: "none", query: { w: "24h" } }),
  "GET /api/series": () => ({ auth: "none", query: { w: "7d", bucket: "day", entity: "demo-agent" } }),
  "GET /api/providers/{key}": () => ({ auth: "none", params: { key: "0x00000000000000000000000000000000000000b2" } }),

  "POST /api/wallet/webauthn/register/options": () => ({ auth: "none", body: { display_name: "Alice" } }),
  "POST /api/wallet/webauthn/register/verify": () => ({
    auth: "none",
    prepare: async () => {
      const c = await challengeRow("register");
      const body = new SoftAuthenticator().register(
        { challenge: c.challenge, user: { id: Buffer.from(c.userId.replace(/-/g, ""), "hex").toString("base64url") } },
        t.url,
      );
      return { body, cookie: c.cookie };
    },
  }),
  "POST /api/wallet/webauthn/auth/options": () => ({ auth: "none", body: {} }),
  "POST /api/wallet/webauthn/auth/verify": (f) => ({
    auth: "none",
    prepare: async () => {
      const c = await challengeRow("auth");
      return { body: f.authn.assert({ challenge: c.challenge }, t.url), cookie: c.cookie };
    },
  }),
  "GET /api/wallet/me": () => ({ auth: "cookie" }),
  "POST /api/wallet/logout": () => ({ auth: "throwaway-cookie", body: {} }),
  "POST /api/wallet/device/start": () => ({ auth: "none", body: { agent_label: "fuzz agent" } }),
  "GET /api/wallet/device/poll": (f) => ({ auth: "none", query: { device_id: f.pairing.deviceId } }),
  "GET /api/wallet/device/lookup": (f) => ({ auth: "cookie", query: { code: f.pairing.code } }),
  "POST /api/wallet/device/approve-init": (f) => ({
    auth: "cookie",
    body: { code: f.pairing.code, spend_cap_wei: "1000", per_call_cap_wei: "100", session_ttl_seconds: 3600, token: SESSION_TOKEN },
  }),
  "POST /api/wallet/device/approve-finalize": (f) => ({ auth: "cookie", body: { code: f.pairing.code, tx_hash: `0x${"ab".repeat(32)}` } }),
  // above the session's per-call cap (100000): a body that passes validation is refused before the chain
  "POST /api/wallet/pay": () => ({
    auth: "bearer",
    body: { to: "0x00000000000000000000000000000000000000b2", amount_wei: "100001", memo: "fuzz", token: SESSION_TOKEN },
  }),
  "GET /api/wallet/session": () => ({ auth: "bearer" }),
  "GET /api/wallet/payments": () => ({ auth: "bearer", query: { limit: "5" } }),
  "POST /api/wallet/session/revoke": () => ({ auth: "throwaway-bearer", body: {} }),
  "POST /api/wallet/relay": () => ({ auth: "bearer", body: { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] } }),
  "GET /api/wallet/sessions": () => ({ auth: "cookie" }),
  "GET /api/wallet/balances": () => ({ auth: "cookie" }),
  "GET /api/wallet/sessions/{id}": (f) => ({ auth: "cookie", params: { id: f.user.walletSessionId } }),
  "GET /api/wallet/sessions/{id}/payments": (f) => ({ auth: "cookie", params: { id: f.user.walletSessionId }, query: { limit: "10" } }),
  // the throwaway user's own sessions: revoking them must not end the main user's
  "POST /api/wallet/sessions/{id}/revoke": (f) => ({ auth: "throwaway-cookie", params: { id: f.throwaway.walletSessionId }, body: {} }),
  "POST /api/wallet/sessions/revoke-all": () => ({ auth: "throwaway-cookie", body: {} }),
  "POST /api/wallet/sessions/revoke-confirm": (f) => ({
    auth: "throwaway-cookie",
    body: { session_ids: [f.throwaway.walletSessionId], tx_hash: `0x${"ab".repeat(32)}`, error: "user rejected" },
  }),

  "POST /api/webhooks": () => ({
    auth: "bearer",
    body: {
      callback_url: "http://127.0.0.1:9/hook",
      label: "fuzz",
      filters: {
        agent_id: "demo-agent",
        recipient_address: "0x00000000000000000000000000000000000000b2",
        routed_to_address: "0x00000000000000000000000000000000000000b2",
        min_amount_wei: "1",
        token_address: SESSION_TOKEN,
      },
    },
  }),
  "GET /api/webhooks": () => ({ auth: "bearer" }),
  "GET /api/webhooks/{id}": (f) => ({ auth: "bearer", params: { id: f.subscriptionId } }),
  "DELETE /api/webhooks/{id}": (f) => ({ auth: "bearer", params: { id: f.subscriptionId } }),
  "POST /api/webhooks/{id}/verify": (f) => ({ auth: "bearer", params: { id: f.subscriptionId }, body: { verify_token: f.verifyToken } }),
  "POST /api/webhooks/{id}/rotate-secret": (f) => ({ auth: "bearer", params: { id: f.subscriptionId }, body: {} }),
  "POST /api/webhooks/{id}/pause": (f) => ({ auth: "bearer", params: { id: f.subscriptionId }, body: {} }),
  "POST /api/webhooks/{id}/resume": (f) => ({ auth: "bearer", params: { id: f.subscriptionId }, body: {} }),
  "GET /api/webhooks/{id}/deliveries": (f) => ({ auth: "bearer", params: { id: f.subscriptionId }, query: { limit: "10" } }),
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver": (f) => ({
    auth: "bearer",
    params: { id: f.subscriptionId, deliveryId: f.deliveryId },
    body: {},
  }),
  "POST /api/webhooks/{id}/recover": (f) => ({
    auth: "bearer",
    params: { id: f.subscriptionId },
    body: { since: new Date(Date.now() - 3_600_000).toISOString() },
  }),
  "POST /api/webhooks/{id}/test": (f) => ({ auth: "bearer", params: { id: f.subscriptionId }, body: {} }),

  // Paths served outside the three route tables: the live feed, MCP, the operations endpoints.
  "GET /api/feed": () => ({ auth: "none", query: { agent_id: "demo-agent", min_amount_wei: "1", last_event_id: "0" }, headers: { "last-event-id": "0" } }),
  "POST /mcp": () => ({
    auth: "bearer",
    headers: { accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_provider", arguments: { key: "0x00000000000000000000000000000000000000b2" } } },
  }),
  "GET /healthz": () => ({ auth: "none" }),
  "GET /readyz": () => ({ auth: "none" }),
  "GET /metrics": () => ({ auth: "none" }),
};

/** Query parameters tried on every GET operation besides its own (a handler must ignore or refuse them cleanly). */
const GENERIC_QUERY = ["limit", "cursor", "w", "q", "code", "device_id", "since", "bucket", "entity", "provider"];

/** One operation of the OpenAPI document: what the walk sends hostile input to. */
interface Operation {
  method: string;
  /** The document's path template: `/api/…/{name}/…` */
  template: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  hasBody: boolean;
}

type DocParameter = { name: string; in: string };
type DocOperation = { parameters?: DocParameter[]; requestBody?: unknown };

/** Every (path, method) of the OpenAPI document the API serves at /api/openapi.json. */
function documentOperations(): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(openapi.paths as Record<string, Record<string, DocOperation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const named = (where: string) => (op.parameters ?? []).filter((p) => p.in === where).map((p) => p.name);
      out.push({
        method: method.toUpperCase(),
        template,
        pathParams: named("path"),
        queryParams: named("query"),
        headerParams: named("header"),
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return out;
}

const OPERATIONS = documentOperations();
const operationKey = (o: { method: string; template: string }) => `${o.method} ${o.template}`;

// The JSON surfaces of the route table (read, wallet, webhooks), as document templates: each route must be one of the
// document's operations.
const TABLE_ROUTES = listRoutes([...ROUTE_TABLE.read, ...ROUTE_TABLE.wallet, ...ROUTE_TABLE.webhooks]).map((r) => ({ method: r.method, template: r.template }));

interface FuzzRequest {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface Answer {
  status: number;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One request; an answer that is an event stream (the feed accepted it) is closed at once: its status is the answer. */
async function send(r: FuzzRequest): Promise<Answer> {
  const abort = new AbortController();
  try {
    const res = await fetch(t.url + r.path, {
      method: r.method,
      headers: r.headers,
      body: typeof r.body === "string" || r.body === undefined ? r.body : new Uint8Array(r.body),
      signal: abort.signal,
    });
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      abort.abort();
      return { status: res.status, text: "(event stream)", body: null };
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    return { status: res.status, text, body };
  } catch (error) {
    return { status: 0, text: `request failed: ${(error as Error).cause ?? error}`, body: null };
  }
}

const isErrorBody = (
  b: any, // eslint-disable-line @typescript-eslint/no-explicit-any
) =>
  b &&
  typeof b === "object" &&
  b.error &&
  typeof b.error.code === "string" &&
  /^[a-z][a-z0-9_]*$/.test(b.error.code) &&
  typeof b.error.message === "string" &&
  b.error.message.length > 0;

/** JSON-RPC's own error (/mcp answers a body that is not a message so; the OpenAPI document says where it may come). */
const isJsonRpcError = (
  b: any, // eslint-disable-line @typescript-eslint/no-explicit-any
) => b && typeof b === "object" && b.jsonrpc === "2.0" && b.error && Number.isInteger(b.error.code) && typeof b.error.message === "string";

/** What is wrong with an answer, or null: a 5xx, a connection failure, or a 4xx without the error body. */
function restProblem(a: Answer): string | null {
  if (a.status === 0 || a.status >= 500) return `${a.status} ${a.text.slice(0, 200)}`;
  if (a.status >= 400 && !isErrorBody(a.body) && !isJsonRpcError(a.body)) return `${a.status} without { error: { code, message } }: ${a.text.slice(0, 200)}`;
  return null;
}

/** Runs requests a few at a time; returns "label → problem" for each bad answer. */
async function runAll<T>(items: T[], send1: (item: T) => Promise<string | null>, concurrency = 6): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const problem = await send1(item);
        if (problem) problems.push(problem);
      }
    }),
  );
  return problems;
}

function authHeaders(auth: Auth, f: Fixtures): Record<string, string> {
  switch (auth) {
    case "bearer":
      return { authorization: `Bearer ${f.user.bearer}` };
    case "cookie":
      return { cookie: `al_session=${f.user.cookie}`, origin: t.url };
    case "throwaway-bearer":
      return { authorization: `Bearer ${f.throwaway.bearer}` };
    case "throwaway-cookie":
      return { cookie: `al_session=${f.throwaway.cookie}`, origin: t.url };
    default:
      return {};
  }
}

/** A header value fetch can send: visible ASCII and spaces (control characters, non-Latin-1 and lone surrogates are refused before sending). */
const sendableHeader = (value: string) => /^[\x20-\x7e]*$/.test(value);

/** Every request the fuzz sends for one operation (a function: some bodies are prepared per request). */
function fuzzRequests(op: Operation, sample: Sample, f: Fixtures): (() => Promise<FuzzRequest>)[] {
  const out: (() => Promise<FuzzRequest>)[] = [];
  const path = (params: Record<string, string>) =>
    op.template.replace(/\{([a-zA-Z0-9]+)\}/g, (_m, name: string) => params[name] ?? urlEncode(sample.params?.[name] ?? "x"));
  const query = (q: Record<string, string>) => {
    const entries = Object.entries(q);
    return entries.length ? `?${entries.map(([k, v]) => `${k}=${v}`).join("&")}` : "";
  };
  const baseQuery = Object.fromEntries(Object.entries(sample.query ?? {}).map(([k, v]) => [k, urlEncode(v)]));
  const hasBody = op.method !== "GET" && (sample.body !== undefined || sample.prepare !== undefined || op.hasBody);
  const make =
    (
      label: string,
      parts: {
        params?: Record<string, string>;
        query?: Record<string, string>;
        headers?: Record<string, string>;
        body?: (b: unknown) => string | Buffer;
        contentType?: string;
      },
    ) =>
    async (): Promise<FuzzRequest> => {
      const prepared = sample.prepare ? await sample.prepare() : { body: sample.body ?? {} };
      const headers: Record<string, string> = { ...authHeaders(sample.auth, f), ...sample.headers, ...parts.headers };
      if (prepared.cookie) headers.cookie = headers.cookie ? `${headers.cookie}; ${prepared.cookie}` : prepared.cookie;
      let body: string | Buffer | undefined;
      if (hasBody) {
        body = parts.body ? parts.body(prepared.body) : toJsonText(prepared.body);
        headers["content-type"] = parts.contentType ?? "application/json";
      }
      return { label: `${op.method} ${label}`, method: op.method, path: path(parts.params ?? {}) + query(parts.query ?? baseQuery), headers, body };
    };

  // path parameters
  for (const name of op.pathParams) {
    for (const [what, value] of BAD_STRINGS)
      if (value !== "") out.push(make(`${op.template} with {${name}} = ${what}`, { params: { [name]: urlEncode(value) } }));
    for (const raw of ["%", "%E0%A4%A", "%ED%A0%80", "%C0%80", "%00%00", "..", "%2F"])
      out.push(make(`${op.template} with {${name}} = raw ${raw}`, { params: { [name]: raw } }));
  }
  // query parameters (GET only: the others change state): each bad value with the sample's other parameters, and alone
  // (a sample's other parameter may refuse the request before this one is read: series' entity= before provider=)
  if (op.method === "GET") {
    for (const key of new Set([...op.queryParams, ...Object.keys(sample.query ?? {}), ...GENERIC_QUERY])) {
      const others = Object.keys(baseQuery).some((k) => k !== key);
      for (const [what, value] of BAD_STRINGS) {
        out.push(make(`${op.template}?${key} = ${what}`, { query: { ...baseQuery, [key]: urlEncode(value) } }));
        if (others) out.push(make(`${op.template}?${key} = ${what} (alone)`, { query: { [key]: urlEncode(value) } }));
      }
      out.push(make(`${op.template}?${key} twice`, { query: { ...baseQuery, [`${key}=a&${key}`]: "b" } }));
      out.push(make(`${op.template}?${key} = raw %ED%A0%80`, { query: { ...baseQuery, [key]: "%ED%A0%80" } }));
    }
  }
  // header parameters: the bad values a header can carry
  for (const name of op.headerParams) {
    for (const [what, value] of BAD_STRINGS)
      if (sendableHeader(value)) out.push(make(`${op.template} with header ${name} = ${what}`, { headers: { [name.toLowerCase()]: value } }));
  }
  // bodies: malformed and hostile whole bodies, then every bad value (deep nesting included) at every leaf of the sample's
  if (hasBody) {
    for (const [what, raw, contentType] of BAD_BODIES) out.push(make(`${op.template} body ${what}`, { body: () => raw, contentType }));
    const shape = sample.body ?? {
      id: "",
      rawId: "",
      type: "",
      response: { clientDataJSON: "", attestationObject: "", authenticatorData: "", signature: "", userHandle: "", transports: [""] },
      clientExtensionResults: {},
    };
    for (const at of leafPaths(shape)) {
      for (const [what, value] of BAD_VALUES) {
        out.push(make(`${op.template} body.${at.join(".") || "(root)"} = ${what}`, { body: (b) => toJsonText(replaceAt(b, at, value)) }));
      }
    }
    for (const [what, value] of [
      ["unknown field", "x"],
      ["unknown field with a NUL name", "x"],
    ] as const) {
      const key = what.includes("NUL") ? "a\u0000b" : "not_a_field";
      out.push(
        make(`${op.template} body with an ${what}`, { body: (b) => toJsonText(b && typeof b === "object" && !Array.isArray(b) ? { ...b, [key]: value } : b) }),
      );
    }
  }
  // credentials
  for (const [what, headers] of [
    ["no credentials", { authorization: "", cookie: "" }],
    ["an unknown bearer", { authorization: `Bearer alt_${"x".repeat(43)}` }],
    ["a huge bearer", { authorization: `Bearer ${"x".repeat(8_000)}` }],
    ["a bearer with odd characters", { authorization: "Bearer %00\u00ff\u00fe" }],
    ["a malformed cookie", { cookie: "al_session=%ff%00; al_webauthn=%%%; al_session=x" }],
    ["a huge cookie", { cookie: `al_session=${"x".repeat(8_000)}` }],
  ] as const) {
    out.push(make(`${op.template} with ${what}`, { headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== "")) }));
  }
  return out;
}

describe("fuzz: every operation of the OpenAPI document answers hostile input with a 4xx and the error body", () => {
  it("every operation has a fuzz sample, every sample an operation, and every route of the route tables is an operation", () => {
    const keys = new Set(OPERATIONS.map(operationKey));
    expect(OPERATIONS.length).toBeGreaterThan(40);
    expect(
      [...keys].filter((k) => !SAMPLES[k]),
      "operations without a sample in SAMPLES (add one)",
    ).toEqual([]);
    expect(
      Object.keys(SAMPLES).filter((k) => !keys.has(k)),
      "samples of operations the document no longer has",
    ).toEqual([]);
    expect(
      TABLE_ROUTES.map(operationKey).filter((k) => !keys.has(k)),
      "routes missing from the OpenAPI document",
    ).toEqual([]);
    expect(TABLE_ROUTES.length).toBeGreaterThan(30);
  });

  it("the document walked is the one the API serves at /api/openapi.json", async () => {
    const served = await getJson(t.url, "/api/openapi.json");
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(JSON.stringify(openapi)));
  });

  // An operation without a sample is fuzzed all the same (with the cookie and an empty object body) besides failing above.
  it.each(OPERATIONS.map((o) => [operationKey(o), o] as const))(
    "%s",
    async (_key, op) => {
      const sample = SAMPLES[operationKey(op)]?.(fx) ?? { auth: "cookie", body: op.method === "GET" ? undefined : {}, params: {} };
      const requests = fuzzRequests(op, sample, fx);
      const problems = await runAll(requests, async (build) => {
        const r = await build();
        const answer = await send(r);
        const problem = restProblem(answer) ?? (answer.status === 0 ? null : (openapiProblems(r.method, op.template, answer.status, answer.body)[0] ?? null));
        return problem && `${r.label} → ${problem}`;
      });
      expect(problems).toEqual([]);
    },
    300_000,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// The fuzz over every GraphQL field that takes arguments (queries, mutations, nested fields, the subscription).

interface GraphqlSample {
  /** Valid arguments: the fuzz replaces one leaf at a time. */
  args: (f: Fixtures) => Record<string, unknown>;
  /** For a nested field: the selection around it, from the root. */
  wrap?: (inner: string) => string;
  /** Who asks (default: the main user's bearer token); the owner fields take the passkey cookie only. */
  auth?: Auth;
}

/** Samples by "Type.field" for every field with arguments (a new one without a sample fails the coverage test). */
const GRAPHQL_SAMPLES: Record<string, GraphqlSample> = {
  "Query.agent": { args: () => ({ id: "demo-agent" }) },
  "Query.service": { args: () => ({ id: "weather-api-mpp" }) },
  "Query.dashboard": { args: () => ({ window: "24h" }) },
  "Query.event": { args: () => ({ id: "1" }) },
  "Query.providers": { args: () => ({ first: 10, after: null }) },
  "Query.search": { args: () => ({ q: "demo" }) },
  "Query.provider": { args: () => ({ key: "0x00000000000000000000000000000000000000b2" }) },
  "Query.activitySeries": { args: () => ({ window: "7d", bucket: "day", entityId: "demo-agent", providerKey: null }) },
  "Query.webhook": { args: (f) => ({ id: f.subscriptionId }) },
  "Query.webhookDeliveries": { args: (f) => ({ id: f.subscriptionId, first: 10, after: null }) },
  "Entity.providers": { args: () => ({ first: 10, after: null }), wrap: (inner) => `service(id: "weather-api-mpp") { ${inner} }` },
  "Entity.recentEvents": { args: () => ({ first: 10, after: null }), wrap: (inner) => `agent(id: "demo-agent") { ${inner} }` },
  "SearchResult.addresses": { args: () => ({ first: 10, after: null }), wrap: (inner) => `search(q: "demo") { ${inner} }` },
  "SearchResult.entities": { args: () => ({ first: 10, after: null }), wrap: (inner) => `search(q: "demo") { ${inner} }` },
  "SearchResult.events": { args: () => ({ first: 10, after: null }), wrap: (inner) => `search(q: "demo") { ${inner} }` },
  "Mutation.createWebhook": {
    args: () => ({
      input: {
        callbackUrl: "http://127.0.0.1:9/hook",
        label: "fuzz",
        filters: {
          agentId: "demo-agent",
          recipientAddress: "0x00000000000000000000000000000000000000b2",
          routedToAddress: null,
          minAmountWei: "1",
          tokenAddress: SESSION_TOKEN,
        },
      },
    }),
  },
  "Mutation.deleteWebhook": { args: (f) => ({ id: f.subscriptionId }) },
  "Mutation.pauseWebhook": { args: (f) => ({ id: f.subscriptionId }) },
  "Mutation.resumeWebhook": { args: (f) => ({ id: f.subscriptionId }) },
  "Mutation.rotateWebhookSecret": { args: (f) => ({ id: f.subscriptionId }) },
  "Mutation.verifyWebhook": { args: (f) => ({ id: f.subscriptionId, verifyToken: f.verifyToken }) },
  "Mutation.redeliverWebhookDelivery": { args: (f) => ({ id: f.subscriptionId, deliveryId: f.deliveryId }) },
  "Mutation.recoverWebhook": { args: (f) => ({ id: f.subscriptionId, since: new Date(Date.now() - 3_600_000).toISOString() }) },
  "Mutation.testWebhook": { args: (f) => ({ id: f.subscriptionId }) },
  "Query.walletSession": { auth: "cookie", args: (f) => ({ id: f.user.walletSessionId }) },
  "Query.walletSessionPayments": { auth: "cookie", args: (f) => ({ id: f.user.walletSessionId, first: 10, after: null }) },
  "Mutation.revokeWalletSession": { auth: "throwaway-cookie", args: (f) => ({ id: f.throwaway.walletSessionId }) },
  "Mutation.confirmWalletRevoke": {
    auth: "throwaway-cookie",
    args: (f) => ({ sessionIds: [f.throwaway.walletSessionId], txHash: `0x${"ab".repeat(32)}`, error: "user rejected" }),
  },
  "Subscription.ledgerEvents": { args: () => ({ afterId: "0", agentId: "demo-agent", minAmountWei: "1" }) },
};

interface GraphqlField {
  key: string;
  root: "query" | "mutation" | "subscription";
  field: GraphQLField<unknown, unknown>;
}

/** Every field with arguments, on the root types and on the object types below them. */
function graphqlFieldsWithArgs(): GraphqlField[] {
  const schema = buildSchema();
  const roots = new Map([
    [schema.getQueryType(), "query"],
    [schema.getMutationType(), "mutation"],
    [schema.getSubscriptionType(), "subscription"],
  ] as const);
  const rootOf = (typeName: string) => [...roots].find(([type]) => type?.name === typeName)?.[1] ?? "query";
  const out: GraphqlField[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length > 0) out.push({ key: `${type.name}.${field.name}`, root: rootOf(type.name), field });
    }
  }
  return out;
}

const GRAPHQL_FIELDS = graphqlFieldsWithArgs();

/** The operation selecting `field` with every argument as a variable. */
function operationOf(f: GraphqlField, sample: GraphqlSample): string {
  const vars = f.field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(", ");
  const args = f.field.args.map((a) => `${a.name}: $${a.name}`).join(", ");
  const selection = isLeafType(getNamedType(f.field.type)) ? "" : " { __typename }";
  const inner = `${f.field.name}(${args})${selection}`;
  return `${f.root} Fuzz(${vars}) { ${sample.wrap ? sample.wrap(inner) : inner} }`;
}

/** What is wrong with a GraphQL answer: a 5xx, not JSON, an error without `extensions.code`, or a masked internal error. */
function graphqlProblem(a: Answer): string | null {
  if (a.status === 0 || a.status >= 500) return `${a.status} ${a.text.slice(0, 200)}`;
  if (!a.body || typeof a.body !== "object") return `${a.status} not JSON: ${a.text.slice(0, 200)}`;
  const errors: { message?: string; extensions?: { code?: unknown } }[] = a.body.errors ?? [];
  if (a.status >= 400 && errors.length === 0) return `${a.status} without errors: ${a.text.slice(0, 200)}`;
  for (const e of errors) {
    if (typeof e.extensions?.code !== "string") return `${a.status} an error without extensions.code: ${JSON.stringify(e).slice(0, 200)}`;
    if (e.extensions.code === "internal_error") return `${a.status} a masked internal error: ${JSON.stringify(e).slice(0, 200)}`;
  }
  return null;
}

/** One GraphQL request: POST JSON (the direct lane and yoga), or over graphql-sse for the subscription (first answer only). */
async function sendGraphql(root: GraphqlField["root"], bodyText: string, auth: Record<string, string>): Promise<Answer> {
  if (root !== "subscription") {
    return send({
      label: "",
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json", accept: "application/json", ...auth },
      body: bodyText,
    });
  }
  // graphql-sse, distinct connections: a refused operation is a JSON answer; an accepted one starts a stream (closed here).
  const abort = new AbortController();
  try {
    const res = await fetch(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...auth },
      body: bodyText,
      signal: abort.signal,
    });
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      const reader = res.body!.getReader();
      const first = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), 1_000))]);
      abort.abort();
      const text = first && first.value ? Buffer.from(first.value).toString("utf8") : "";
      // an event stream: its first `next` event may carry errors (each must have a code), else it is a live stream
      const data = /^data: (.*)$/m.exec(text)?.[1];
      let body: unknown = {};
      try {
        body = data ? JSON.parse(data) : {};
      } catch {
        // the first chunk ended inside the event: a live stream all the same
      }
      return { status: res.status, text, body };
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    return { status: res.status, text, body };
  } catch (error) {
    return { status: 0, text: `request failed: ${(error as Error).cause ?? error}`, body: null };
  }
}

describe("JSON nested deeper than the bound is 400 invalid_body on every surface that reads JSON (a 4,000-deep relay method was a 500: the stack ran out)", () => {
  const deep = (n = 4_000) => `${"[".repeat(n)}${"]".repeat(n)}`;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    getJson(t.url, path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  it("the wallet relay: a nested array as the JSON-RPC method", async () => {
    const res = await post("/api/wallet/relay", `{"jsonrpc":"2.0","id":1,"method":${deep()},"params":[]}`, { authorization: `Bearer ${fx.user.bearer}` });
    expect([res.status, res.body]).toEqual([400, { error: { code: "invalid_body", message: expect.any(String) } }]);
    // a method that is not a string but shallow is the relay's own JSON-RPC refusal, naming no value
    const shallow = await post("/api/wallet/relay", '{"jsonrpc":"2.0","id":1,"method":[["x"]],"params":[]}');
    expect([shallow.status, shallow.body.error]).toEqual([200, { code: -32601, message: "method not offered by this relay: (not a string)" }]);
  });

  it("a wallet and a webhook body, and /mcp", async () => {
    const pairing = await post("/api/wallet/device/start", `{"agent_label":${deep()}}`);
    expect([pairing.status, pairing.body.error?.code]).toEqual([400, "invalid_body"]);
    const webhook = await post("/api/webhooks", `{"callback_url":"http://127.0.0.1:9/hook","filters":{"agent_id":${deep()}}}`, {
      authorization: `Bearer ${fx.user.bearer}`,
    });
    expect([webhook.status, webhook.body.error?.code]).toEqual([400, "invalid_body"]);
    const mcp = await post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":${deep()}}}}`, {
      accept: "application/json, text/event-stream",
    });
    expect([mcp.status, mcp.body.error?.code]).toEqual([400, -32700]); // JSON-RPC's parse error (docs/mcp.md)
  });

  it("GraphQL: variables in a JSON POST (both lanes), a GET and /graphql/stream", async () => {
    const query = "query($q: String!) { search(q: $q) { q } }";
    const codes = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.map((e) => e.extensions?.code);
    const direct = await post("/graphql", `{"query":${JSON.stringify(query)},"variables":{"q":${deep()}}}`, { accept: "application/json" });
    expect([direct.status, codes(direct.body)]).toEqual([400, ["invalid_body"]]);
    const viaYoga = await post("/graphql", `{"query":${JSON.stringify(query)},"variables":{"q":${deep()}}}`, { accept: "application/graphql-response+json" });
    expect([viaYoga.status, codes(viaYoga.body)]).toEqual([400, ["invalid_body"]]);
    const get = await getJson(t.url, `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(`{"q":${deep(2_000)}}`)}`, {
      headers: { accept: "application/json" },
    });
    expect([get.status, codes(get.body)]).toEqual([400, ["invalid_body"]]);
    const stream = await post("/graphql/stream", `{"query":"subscription { ledgerEvents { id } }","variables":{"x":${deep()}}}`, {
      accept: "text/event-stream",
    });
    expect([stream.status, codes(stream.body)]).toEqual([400, ["invalid_body"]]);
  });
});

describe("GraphQL refusals are 400s with a code (issue 14: a masked internal_error with 200; armor limits without a code)", () => {
  const deep = `{ dashboard { recentEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } } }`;
  it.each([
    ["GET with variables that are not JSON", "GET", `/graphql?query=${encodeURIComponent("{ services { id } }")}&variables=notjson`, "invalid_request"],
    ["GET with extensions that are not JSON", "GET", `/graphql?query=${encodeURIComponent("{ services { id } }")}&extensions=%7B`, "invalid_request"],
    ["too deep", "POST", { query: deep }, "query_too_complex", "max_depth"],
    ["too deep, over GET", "GET", `/graphql?query=${encodeURIComponent(deep)}`, "query_too_complex", "max_depth"],
    [
      "too many aliases",
      "POST",
      { query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: services { id }`).join(" ")} }` },
      "query_too_complex",
      "max_aliases",
    ],
    ["too many tokens", "POST", { query: `{ services { ${"id ".repeat(2_500)}} }` }, "query_too_complex", "max_tokens"],
    ["too many directives", "POST", { query: `{ __typename ${"@include(if: true) ".repeat(25)}}` }, "query_too_complex", "max_directives"],
    ["variables of the wrong type", "POST", { query: "query($id: ID!) { event(id: $id) { id } }", variables: { id: { a: 1 } } }, "invalid_variables"],
    ["variables not an object (yoga's own code)", "POST", { query: "{ services { id } }", variables: "x" }, "bad_request"],
    ["a batch (yoga's own code)", "POST", [{ query: "{ services { id } }" }], "bad_request"],
    ["a missing variable", "POST", { query: "query($q: String!) { search(q: $q) { q } }" }, "invalid_variables"],
  ] as const)("%s", async (_name, method, target, code, limit?: string) => {
    const res =
      method === "GET"
        ? await getJson(t.url, target as string, { headers: { accept: "application/json" } })
        : await getJson(t.url, "/graphql", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify(target),
          });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors[0].extensions).toEqual(limit ? { code, limit } : { code });
  });

  it("a POST of another media type is 415 unsupported_media_type with a JSON body", async () => {
    const res = await getJson(t.url, "/graphql", { method: "POST", headers: { "content-type": "text/plain" }, body: "{ services { id } }" });
    expect(res.status).toBe(415);
    expect(res.body.errors[0].extensions.code).toBe("unsupported_media_type");
  });

  it("a URL over Node's 16 KiB header limit is 431 with the error body", async () => {
    const res = await getJson(t.url, `/api/search?q=${"x".repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ error: { code: "request_header_too_large", message: expect.any(String) } });
  });
});

describe("fuzz: every GraphQL field with arguments answers hostile variables with coded errors", () => {
  it("every field with arguments has a fuzz sample, and every sample a field", () => {
    const keys = new Set(GRAPHQL_FIELDS.map((f) => f.key));
    expect(keys.size).toBeGreaterThan(15);
    expect(
      [...keys].filter((k) => !GRAPHQL_SAMPLES[k]),
      "fields without a sample in GRAPHQL_SAMPLES (add one)",
    ).toEqual([]);
    expect(
      Object.keys(GRAPHQL_SAMPLES).filter((k) => !keys.has(k)),
      "samples of fields that no longer exist",
    ).toEqual([]);
  });

  it.each(GRAPHQL_FIELDS.filter((f) => GRAPHQL_SAMPLES[f.key]).map((f) => [f.key, f] as const))(
    "%s",
    async (_key, f) => {
      const sample = GRAPHQL_SAMPLES[f.key]!;
      const query = operationOf(f, sample);
      const args = sample.args(fx);
      const auth = authHeaders(sample.auth ?? "bearer", fx);
      const cases: [string, string][] = [];
      // the sample with its optional arguments null: a bad value alone (the sample's entityId would refuse activitySeries
      // before its providerKey is read)
      const bare = Object.fromEntries(f.field.args.map((a) => [a.name, isNonNullType(a.type) ? args[a.name] : null]));
      const hasOptional = f.field.args.some((a) => !isNonNullType(a.type) && args[a.name] != null);
      for (const at of leafPaths(args)) {
        if (at.length === 0) continue;
        for (const [what, value] of BAD_VALUES) {
          cases.push([`$${at.join(".")} = ${what}`, toJsonText({ query, variables: replaceAt(args, at, value) })]);
          if (hasOptional) cases.push([`$${at.join(".")} = ${what} (alone)`, toJsonText({ query, variables: replaceAt(bare, at, value) })]);
        }
      }
      for (const [what, value] of BAD_VALUES) cases.push([`variables = ${what}`, toJsonText({ query, variables: value })]);
      cases.push(["without credentials", toJsonText({ query, variables: args })]);
      const problems = await runAll(cases, async ([label, bodyText]) => {
        const problem = graphqlProblem(await sendGraphql(f.root, bodyText, label === "without credentials" ? {} : auth));
        return problem && `${label} → ${problem}`;
      });
      expect(problems).toEqual([]);
    },
    300_000,
  );

  it("the HTTP layer: GET with undecodable parameters, bad bodies, batching, limits — every error coded, none 5xx", async () => {
    const q = encodeURIComponent("{ services { id } }");
    const deep = `{ dashboard { recentEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } } }`;
    const cases: [string, RequestInit & { path: string }][] = [
      ...["notjson", "%7B", "%00", "[]", "1", "%22x%22", "%ED%A0%80", encodeURIComponent('{"a":\u0000}')].flatMap(
        (v): [string, RequestInit & { path: string }][] => [
          [`GET variables=${v}`, { path: `/graphql?query=${q}&variables=${v}` }],
          [`GET extensions=${v}`, { path: `/graphql?query=${q}&extensions=${v}` }],
        ],
      ),
      ["GET operationName that names nothing", { path: `/graphql?query=${q}&operationName=nope` }],
      ["GET operationName with NUL", { path: `/graphql?query=${q}&operationName=%00` }],
      ["GET query with NUL", { path: "/graphql?query=%00" }],
      ["GET query with a lone surrogate", { path: "/graphql?query=%ED%A0%80" }],
      ["GET without a query (JSON accept)", { path: "/graphql", headers: { accept: "application/json" } }],
      ["GET a mutation", { path: `/graphql?query=${encodeURIComponent('mutation { deleteWebhook(id: "x") { ok } }')}` }],
      ["GET over-deep", { path: `/graphql?query=${encodeURIComponent(deep)}` }],
      ["POST over-deep", { path: "/graphql", method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: deep }) }],
      [
        "POST too many aliases",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: services { id }`).join(" ")} }` }),
        },
      ],
      [
        "POST too many tokens",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: `{ ${"__typename ".repeat(3_000)} }` }),
        },
      ],
      [
        "POST too many directives",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: `{ __typename ${"@include(if: true) ".repeat(25)} }` }),
        },
      ],
      [
        "POST too costly",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: agents { recentEvents { entity { id label } } }`).join(" ")} }` }),
        },
      ],
      [
        "POST a batch",
        { path: "/graphql", method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify([{ query: "{ services { id } }" }]) },
      ],
      [
        "POST unknown parameter",
        { path: "/graphql", method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ services { id } }", nope: 1 }) },
      ],
      ["POST query not a string", { path: "/graphql", method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: 1 }) }],
      [
        "POST operationName not a string",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ services { id } }", operationName: 1 }),
        },
      ],
      [
        "POST variables a string",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ services { id } }", variables: "{}" }),
        },
      ],
      [
        "POST extensions a string",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ services { id } }", extensions: "x" }),
        },
      ],
      [
        "POST a subscription",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "subscription { ledgerEvents { id } }" }),
        },
      ],
      ["POST text/plain", { path: "/graphql", method: "POST", headers: { "content-type": "text/plain" }, body: "{ services { id } }" }],
      ["POST application/graphql", { path: "/graphql", method: "POST", headers: { "content-type": "application/graphql" }, body: "{ services { id } }" }],
      [
        "POST too large",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: `{ services { id } } # ${"x".repeat(200_000)}` }),
        },
      ],
      [
        "POST a lone surrogate in the query",
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: '{ search(q: "\ud800x") { q } }' }),
        },
      ],
      ...BAD_BODIES.map(([what, body, contentType]): [string, RequestInit & { path: string }] => [
        `POST body ${what}`,
        {
          path: "/graphql",
          method: "POST",
          headers: { "content-type": contentType ?? "application/json" },
          body: typeof body === "string" ? body : new Uint8Array(body),
        },
      ]),
    ];
    const problems = await runAll(cases, async ([label, { path, ...init }]) => {
      const a = await send({
        label,
        method: init.method ?? "GET",
        path,
        headers: { accept: "application/json", ...(init.headers as Record<string, string>) },
        body: init.body as never,
      });
      const problem = graphqlProblem(a);
      return problem && `${label} → ${problem}`;
    });
    expect(problems).toEqual([]);
  });
});
