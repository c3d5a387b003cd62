import { randomBytes, randomUUID } from "node:crypto";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { openSecret, parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRoutes, ROUTE_TABLE } from "./support/routeList.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";
import { createTestUser, type TestUser } from "./support/walletFixtures.ts";

// Cross-site request forgery (issue 14 §4): a page on another site makes the browser send our passkey session cookie
// with a form POST. State-changing requests carrying the cookie must come from our origin (PUBLIC_BASE_URL's);
// bearer-token requests are not concerned. Real PostgreSQL, the real HTTP server, raw requests as a browser sends them.

const OUR_ORIGIN = "https://ledger.example";
const EVIL = "https://evil.example";
const masterKey = randomBytes(32);
const registry = {
  registry_version: 1,
  network: "devnet",
  entities: [{ id: "demo-agent", label: "Demo agent", category: "agent", wallets: ["0x00000000000000000000000000000000000000a1"] }],
};

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
let sql: pg.Client;
let alice: TestUser;
let hookId: string;

async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(t.url + path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
/** What a cross-site `<form method=post>` sends: the cookie, the foreign Origin, a form content type, no JSON. */
const forged = (extra: Record<string, string> = {}) => ({
  cookie: `al_session=${alice.cookie}`,
  origin: EVIL,
  "sec-fetch-site": "cross-site",
  "content-type": "application/x-www-form-urlencoded",
  ...extra,
});
const sealedSecret = async (id: string) =>
  (await sql.query("SELECT signing_secret_ciphertext FROM webhook_subscriptions WHERE id = $1", [id])).rows[0].signing_secret_ciphertext as string;
const status = async (id: string) => (await sql.query("SELECT status FROM webhook_subscriptions WHERE id = $1", [id])).rows[0].status as string;
/** Everything a forged request could change: subscriptions, deliveries, sessions, pairings. */
const snapshot = async () =>
  (
    await sql.query(`SELECT
    (SELECT json_agg(s ORDER BY id) FROM webhook_subscriptions s) AS subs, (SELECT count(*) FROM webhook_deliveries) AS deliveries,
    (SELECT count(*) FROM user_sessions) AS user_sessions, (SELECT json_agg(p ORDER BY id) FROM device_pairings p) AS pairings`)
  ).rows[0];

beforeAll(async () => {
  db = await createTestDatabase();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(registry), "registry:test.json");
  await registryDb.end();
  t = await startTestApp(db.url, { webhooks: { masterKey, production: false }, wallet: { masterKey, production: false, publicBaseUrl: `${OUR_ORIGIN}/` } });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  alice = await createTestUser(db.url);
  const created = await send(
    "POST",
    "/api/webhooks",
    { authorization: `Bearer ${alice.bearer}`, "content-type": "application/json" },
    JSON.stringify({ callback_url: "http://127.0.0.1:9/hook", label: "csrf", filters: { agent_id: "demo-agent" } }),
  );
  expect(created.status).toBe(201);
  hookId = created.body.id;
  await sql.query("UPDATE webhook_subscriptions SET status = 'active' WHERE id = $1", [hookId]);
});

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await db?.drop();
});

describe("a forged cross-site request with the session cookie", () => {
  it.each<[string, () => Record<string, string>]>([
    ["form POST (x-www-form-urlencoded)", () => forged()],
    ["text/plain POST", () => forged({ "content-type": "text/plain" })],
    ["no body, no content type", () => (({ "content-type": _, ...h }) => h)(forged())],
    ["Origin: null (sandboxed frame)", () => forged({ origin: "null" })],
    ["a sibling origin of the same site", () => forged({ origin: "https://other.ledger.example", "sec-fetch-site": "same-site" })],
    ["our host on another port", () => forged({ origin: "https://ledger.example:8443", "sec-fetch-site": "same-site" })],
    ["our host over http", () => forged({ origin: "http://ledger.example", "sec-fetch-site": "same-site" })],
  ])("cannot rotate the secret: %s → 403 cross_site_request, secret unchanged", async (_name, makeHeaders) => {
    const headers = makeHeaders();
    const before = await sealedSecret(hookId);
    const res = await send("POST", `/api/webhooks/${hookId}/rotate-secret`, headers, headers["content-type"] ? "a=b" : undefined);
    expect([res.status, res.body.error.code]).toEqual([403, "cross_site_request"]);
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(await sealedSecret(hookId)).toBe(before);
  });

  it("is refused when it proves no origin at all (no Origin; Sec-Fetch-Site absent or not same-origin)", async () => {
    const before = await sealedSecret(hookId);
    const cookie = `al_session=${alice.cookie}`;
    const attempts: Record<string, string>[] = [
      { cookie },
      { cookie, "sec-fetch-site": "cross-site" },
      { cookie, "sec-fetch-site": "same-site" },
      { cookie, "sec-fetch-site": "none" },
    ];
    for (const headers of attempts) {
      const res = await send("POST", `/api/webhooks/${hookId}/rotate-secret`, headers);
      expect([JSON.stringify(headers), res.status, res.body.error.code]).toEqual([JSON.stringify(headers), 403, "cross_site_request"]);
    }
    expect(await sealedSecret(hookId)).toBe(before);
  });

  it("changes nothing on any state-changing webhook route (every non-GET route of the REST handler)", async () => {
    const routes = listRoutes(ROUTE_TABLE.webhooks).filter((r) => r.method !== "GET");
    expect(routes.length).toBeGreaterThanOrEqual(7); // create, delete, verify, rotate-secret, pause, resume, redeliver, …
    const before = await snapshot();
    for (const route of routes) {
      const ids = [hookId, randomUUID()];
      const path = route.path.replace(/:\w+/g, () => ids.shift()!);
      const res = await send(
        route.method,
        path,
        forged({ "content-type": "text/plain" }),
        route.method === "DELETE" ? undefined : '{"since":"2026-01-01T00:00:00Z"}',
      );
      expect([route.method, path, res.status, res.body?.error?.code]).toEqual([route.method, path, 403, "cross_site_request"]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("changes nothing on the wallet's POST endpoints (logout keeps the session; approve-init/finalize refused)", async () => {
    const before = await snapshot();
    for (const path of ["/api/wallet/logout", "/api/wallet/device/approve-init", "/api/wallet/device/approve-finalize", "/api/wallet/webauthn/auth/options"]) {
      const res = await send("POST", path, forged({ "content-type": "text/plain" }), '{"code":"ABCD-EFGH"}');
      expect([path, res.status, res.body.error.code]).toEqual([path, 403, "cross_site_request"]);
    }
    expect(await snapshot()).toEqual(before);
    expect((await send("GET", "/api/wallet/me", { cookie: `al_session=${alice.cookie}` })).status).toBe(200);
  });

  it("cannot run a GraphQL mutation (GraphQL error with extensions.code), nor one sent as a form", async () => {
    const mutation = JSON.stringify({ query: `mutation { pauseWebhook(id: "${hookId}") { id status } }` });
    const res = await send("POST", "/graphql", forged({ "content-type": "application/json" }), mutation);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe("cross_site_request");
    const form = await send("POST", "/graphql", forged(), `query=${encodeURIComponent(`mutation { rotateWebhookSecret(id: "${hookId}") { signingSecret } }`)}`);
    expect([form.status, form.body.errors[0].extensions.code]).toEqual([403, "cross_site_request"]);
    // GET is not checked (safe method), so a mutation in a cross-site link or <img> must be refused by GraphQL over HTTP itself.
    const viaGet = await fetch(`${t.url}/graphql?query=${encodeURIComponent(`mutation { pauseWebhook(id: "${hookId}") { status } }`)}`, {
      headers: { cookie: `al_session=${alice.cookie}`, accept: "application/json", "sec-fetch-site": "cross-site" },
    });
    await viaGet.text();
    expect(viaGet.status).toBe(405);
    expect(await status(hookId)).toBe("active");
  });
});

describe("requests that are not forged", () => {
  it("same origin: Origin of PUBLIC_BASE_URL, or no Origin with Sec-Fetch-Site: same-origin, rotates the secret", async () => {
    const proofs: Record<string, string>[] = [{ origin: OUR_ORIGIN }, { "sec-fetch-site": "same-origin" }];
    for (const headers of proofs) {
      const before = await sealedSecret(hookId);
      const res = await send("POST", `/api/webhooks/${hookId}/rotate-secret`, { cookie: `al_session=${alice.cookie}`, ...headers });
      expect(res.status).toBe(200);
      expect(openSecret(await sealedSecret(hookId), masterKey, hookId)).toBe(res.body.signing_secret);
      expect(await sealedSecret(hookId)).not.toBe(before);
    }
  });

  it("same origin: a GraphQL mutation with the cookie runs", async () => {
    const res = await send(
      "POST",
      "/graphql",
      { cookie: `al_session=${alice.cookie}`, origin: OUR_ORIGIN, "content-type": "application/json" },
      JSON.stringify({ query: `mutation { pauseWebhook(id: "${hookId}") { status } }` }),
    );
    expect([res.status, res.body.errors, res.body.data?.pauseWebhook?.status]).toEqual([200, undefined, "paused"]);
    await sql.query("UPDATE webhook_subscriptions SET status = 'active' WHERE id = $1", [hookId]);
  });

  it("bearer-token requests are unaffected by a foreign Origin (REST and GraphQL)", async () => {
    const bearer = { authorization: `Bearer ${alice.bearer}`, origin: EVIL, "sec-fetch-site": "cross-site" };
    const before = await sealedSecret(hookId);
    const rotated = await send("POST", `/api/webhooks/${hookId}/rotate-secret`, bearer);
    expect(rotated.status).toBe(200);
    expect(await sealedSecret(hookId)).not.toBe(before);
    const paused = await send(
      "POST",
      "/graphql",
      { ...bearer, "content-type": "application/json" },
      JSON.stringify({ query: `mutation { pauseWebhook(id: "${hookId}") { status } }` }),
    );
    expect([paused.status, paused.body.data?.pauseWebhook?.status]).toEqual([200, "paused"]);
    expect((await send("POST", `/api/webhooks/${hookId}/resume`, bearer)).status).toBe(200);
  });

  it("reads (GET) with the cookie are not concerned, whatever their Origin", async () => {
    const res = await send("GET", "/api/webhooks", { cookie: `al_session=${alice.cookie}`, origin: EVIL, "sec-fetch-site": "cross-site" });
    expect(res.status).toBe(200);
    expect(res.body.items.map((s: { id: string }) => s.id)).toContain(hookId);
  });

  it("requests without the cookie are not concerned (a receiver's /verify, the CLI's device/start)", async () => {
    const verify = await send(
      "POST",
      `/api/webhooks/${hookId}/verify`,
      { origin: EVIL, "content-type": "application/json" },
      JSON.stringify({ verify_token: "whvt_wrong" }),
    );
    expect([verify.status, verify.body?.error?.code]).not.toEqual([403, "cross_site_request"]);
    expect(verify.status).toBeLessThan(500);
    const start = await send("POST", "/api/wallet/device/start", { origin: EVIL, "content-type": "application/json" }, JSON.stringify({ agent_label: "cli" }));
    expect([start.status, start.body?.error?.code]).not.toEqual([403, "cross_site_request"]);
    expect(start.status).toBeLessThan(500);
  });
});
