import { createTestDatabase } from "@agent-ledger/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, gql } from "./support/http.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// Bad input never produces a 500: every case gets the documented 4xx and error body (REST), or a GraphQL error
// that is not a masked internal error. Runs on an empty migrated database (no chain needed to be wrong).

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await startTestApp(db.url);
});

afterAll(async () => {
  await t?.close();
  await db?.drop();
});

const BAD_IDS = ["abc", "-1", "0", "1e3", "1.0", "+1", "0x10", " 1", "99999999999999999999999", "9223372036854775808", "%00", "%ff", "%E0%A4%A", "%", "1%00", "NaN", "Infinity"];

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
  ...["", "a", "%20%20a%20", "%00%00", "ab%00", "%0a%0d", "x".repeat(201), "%E2%80%A8".repeat(1)].map((q): [string, number, string] => [`/api/search?q=${q}`, 400, "invalid_query"]),
  ["/api/search", 400, "invalid_query"],
  ["/api/search?q", 400, "invalid_query"],
  ["/api/agents/x/events?cursor=%00", 400, "invalid_cursor"],
  ["/api/agents/x/events?limit=1e3", 400, "invalid_limit"],
  ["/api/nope", 404, "not_found"],
  ["/api//services", 404, "not_found"],
  ["/api/events", 404, "not_found"],
  ["/api/events/", 404, "not_found"],
  ["/%00", 404, "not_found"],
];

const REST_OK = ["/api/search?q=%25%25", "/api/search?q=__", "/api/search?q=%5C%5C", "/api/search?q=%27%3B%20DROP%20TABLE%20entities%3B--", "/api/search?q=%F0%9F%98%80%F0%9F%98%80", "/api/search?q=%ff%fe", "/api/search?q=0x", "/api/search?q=0X" + "F".repeat(40), "/api/dashboard?w=all", "/api/dashboard?w=24h&w=bogus"];

describe("REST: invalid input is a 4xx with the error body", () => {
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
  ["over-deep", `{ dashboard { recentEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } } }`],
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

  it("a GET query string and a malformed JSON body are rejected cleanly", async () => {
    expect((await getJson(t.url, `/graphql?query=${encodeURIComponent("{ services { id } }")}`)).status).toBe(200);
    expect((await getJson(t.url, "/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: "[" })).status).toBe(400);
    expect((await getJson(t.url, "/graphql", { method: "PUT", body: "{}" })).status).toBeLessThan(500);
  });
});
