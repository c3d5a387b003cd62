import { randomBytes } from "node:crypto";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { openSecret, parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";
import { createTestUser, type TestUser } from "./support/walletFixtures.ts";

// The webhook subscription API against real PostgreSQL and a real HTTP server: validation, auth,
// ownership, the 25 limit under concurrency, the state machine, secrets, delivery log and redeliver.

const masterKey = randomBytes(32);
const registry = {
  registry_version: 1,
  network: "devnet",
  entities: [
    { id: "demo-agent", label: "Demo agent", category: "agent", wallets: ["0x00000000000000000000000000000000000000a1"] },
    { id: "weather-api-mpp", label: "Weather", category: "service", wallets: ["0x00000000000000000000000000000000000000b2"] },
    { id: "retired-agent", label: "Retired", category: "agent", active: false, wallets: [] },
  ],
};
const valid = { callback_url: "http://127.0.0.1:9/hook", label: "my hook", filters: { agent_id: "demo-agent" } };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
let sql: pg.Client;
let alice: TestUser;
let bob: TestUser;

async function call(
  method: string,
  path: string,
  options: { user?: TestUser | null; cookie?: boolean; body?: unknown; raw?: string; headers?: Record<string, string>; base?: string } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  const user = options.user === undefined ? alice : options.user;
  if (user && options.cookie) headers.cookie = `al_session=${user.cookie}`;
  else if (user) headers.authorization = `Bearer ${user.bearer}`;
  if (options.body !== undefined || options.raw !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${options.base ?? t.url}${path}`, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(registry), "registry:test.json");
  await registryDb.end();
  t = await startTestApp(db.url, { webhooks: { masterKey, production: false } });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  [alice, bob] = await Promise.all([createTestUser(db.url), createTestUser(db.url)]);
});

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await db?.drop();
});

describe("POST /api/webhooks", () => {
  it("creates a pending_verify subscription, returns the secret once, and queues the verification ping", async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const notified: string[] = [];
    listener.on("notification", (n) => notified.push(n.payload ?? ""));
    await listener.query("LISTEN webhook_deliveries");

    const res = await call("POST", "/api/webhooks", {
      body: {
        ...valid,
        filters: {
          agent_id: "demo-agent",
          recipient_address: "0x00000000000000000000000000000000000000B2",
          min_amount_wei: "100000000000000000000000",
          token_address: "0x20C0000000000000000000000000000000000000",
        },
      },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      "callback_url",
      "created_at",
      "filters",
      "id",
      "label",
      "ok",
      "signing_secret",
      "status",
      "verify_token",
      "verify_token_expires_at",
    ]);
    expect(res.body).toMatchObject({ ok: true, status: "pending_verify", callback_url: valid.callback_url, label: "my hook" });
    expect(res.body.filters).toEqual({
      agent_id: "demo-agent",
      recipient_address: "0x00000000000000000000000000000000000000b2",
      min_amount_wei: "100000000000000000000000",
      token_address: "0x20c0000000000000000000000000000000000000",
    });
    expect(res.body.signing_secret).toMatch(/^whsec_/);
    expect(new Date(res.body.verify_token_expires_at).getTime() - new Date(res.body.created_at).getTime()).toBe(24 * 3600 * 1000);

    // Stored: hashes and sealed values only.
    const {
      rows: [row],
    } = await sql.query("SELECT * FROM webhook_subscriptions WHERE id = $1", [res.body.id]);
    expect(JSON.stringify(row)).not.toContain(res.body.signing_secret);
    expect(JSON.stringify(row)).not.toContain(res.body.verify_token);
    expect(openSecret(row.signing_secret_ciphertext, masterKey, res.body.id)).toBe(res.body.signing_secret);
    expect(openSecret(row.verify_token_ciphertext, masterKey, res.body.id)).toBe(res.body.verify_token);

    const { rows: pings } = await sql.query("SELECT id, type, status, event_id FROM webhook_deliveries WHERE subscription_id = $1", [res.body.id]);
    expect(pings).toEqual([{ id: expect.any(String), type: "verify", status: "pending", event_id: null }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(notified).toContain(pings[0].id);
    await listener.end();

    // Never again: list and detail carry no secrets.
    const list = await call("GET", "/api/webhooks");
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    expect(JSON.stringify(list.body)).not.toContain("whvt_");
    const detail = await call("GET", `/api/webhooks/${res.body.id}`);
    expect(detail.body).toMatchObject({
      id: res.body.id,
      status: "pending_verify",
      consecutive_failures: 0,
      deliveries: { pending: 1, retrying: 0, succeeded: 0, dead: 0, total: 1 },
    });
    expect(detail.body).not.toHaveProperty("signing_secret");
  });

  it.each([
    [{ ...valid, filters: {} }, 400, "invalid_filters"],
    [{ ...valid, filters: { agent_id: "nobody" } }, 400, "unknown_agent"],
    [{ ...valid, filters: { agent_id: "retired-agent" } }, 400, "unknown_agent"],
    [{ ...valid, filters: { agent_id: "demo-agent", recipient_address: "0x123" } }, 400, "invalid_filters"],
    [{ ...valid, filters: { agent_id: "demo-agent", min_amount_wei: "-1" } }, 400, "invalid_filters"],
    [{ ...valid, filters: { agent_id: "demo-agent", min_amount_wei: "1.5" } }, 400, "invalid_filters"],
    [{ ...valid, filters: { agent_id: "demo-agent", min_amount_wei: 5 } }, 400, "invalid_filters"],
    [{ ...valid, filters: { agent_id: "demo-agent", memo_prefix: "inv" } }, 400, "invalid_filters"],
    [{ ...valid, filters: "demo-agent" }, 400, "invalid_filters"],
    [{ ...valid, callback_url: "http://example.com/hook" }, 400, "invalid_callback_url"],
    [{ ...valid, callback_url: "ftp://localhost/hook" }, 400, "invalid_callback_url"],
    [{ ...valid, callback_url: "https://user:pw@example.com/hook" }, 400, "invalid_callback_url"],
    [{ ...valid, callback_url: "not a url" }, 400, "invalid_callback_url"],
    [{ ...valid, label: 7 }, 400, "invalid_label"],
    [{ ...valid, label: "x".repeat(201) }, 400, "invalid_label"],
    [{ ...valid, extra: true }, 400, "invalid_body"],
    [[valid], 400, "invalid_body"],
  ])("refuses %j with %i %s", async (body, status, code) => {
    const res = await call("POST", "/api/webhooks", { body });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  });

  it("refuses malformed JSON, other media types and oversized bodies without a 500", async () => {
    expect((await call("POST", "/api/webhooks", { raw: "{nope" })).body.error.code).toBe("invalid_body");
    const form = await call("POST", "/api/webhooks", { raw: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect([form.status, form.body.error.code]).toEqual([415, "unsupported_media_type"]);
    const big = await call("POST", "/api/webhooks", { raw: JSON.stringify({ ...valid, label: "x".repeat(100_000) }) });
    expect([big.status, big.body.error.code]).toEqual([413, "payload_too_large"]);
  });

  it("allows http://localhost outside production; https only and no private addresses in production", async () => {
    expect((await call("POST", "/api/webhooks", { body: { ...valid, callback_url: "http://localhost:8080/x" } })).status).toBe(201);
    const hosts: Record<string, { address: string }[]> = {
      "good.example": [{ address: "93.184.216.34" }],
      "rebind.example": [{ address: "93.184.216.34" }, { address: "10.0.0.5" }],
      "meta.example": [{ address: "169.254.169.254" }],
    };
    const lookup = async (host: string) => {
      const found = hosts[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return found;
    };
    const prod = await startTestApp(db.url, { webhooks: { masterKey, production: true, lookup } });
    try {
      const create = (callback_url: string) => call("POST", "/api/webhooks", { base: prod.url, user: bob, body: { ...valid, callback_url } });
      expect((await create("http://localhost:8080/x")).body.error.code).toBe("invalid_callback_url");
      for (const url of [
        "https://127.0.0.1/x",
        "https://[::1]/x",
        "https://10.1.2.3/x",
        "https://172.16.0.1/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest",
        "https://[::ffff:127.0.0.1]/x",
        "https://rebind.example/x",
        "https://meta.example/x",
        // core's shared rule (issue 14 §5): IPv4-translated, Teredo, 100::/64, 2001:10::/28, 192.88.99.0/24, NAT64 of metadata
        "https://[::ffff:0:7f00:1]/x",
        "https://[2001::1]/x",
        "https://[100::1]/x",
        "https://[2001:10::1]/x",
        "https://192.88.99.1/x",
        "https://[64:ff9b::a9fe:a9fe]/x",
      ]) {
        const res = await create(url);
        expect([url, res.status, res.body.error.code]).toEqual([url, 400, "callback_url_forbidden"]);
      }
      expect((await create("https://nxdomain.example/x")).body.error.code).toBe("invalid_callback_url");
      expect((await create("https://good.example/x")).status).toBe(201);
    } finally {
      await prod.close();
    }
  });

  it("answers 503 not_configured when the server has no master key", async () => {
    const bare = await startTestApp(db.url, { webhooks: { masterKey: null, production: false } });
    try {
      const res = await call("POST", "/api/webhooks", { base: bare.url, body: valid });
      expect([res.status, res.body.error.code]).toEqual([503, "not_configured"]);
    } finally {
      await bare.close();
    }
  });
});

describe("authentication", () => {
  it("401 without credentials or with an unknown bearer; 403 for revoked or expired sessions; the cookie works", async () => {
    expect((await call("GET", "/api/webhooks", { user: null })).status).toBe(401);
    const bad = await call("GET", "/api/webhooks", { user: null, headers: { authorization: `Bearer ${"x".repeat(40)}` } });
    expect([bad.status, bad.body.error.code, bad.headers.get("www-authenticate")]).toEqual([401, "unauthorized", "Bearer"]);
    expect((await call("GET", "/api/webhooks", { user: null, headers: { authorization: "Basic abc" } })).status).toBe(401);
    const revoked = await createTestUser(db.url, { revoked: true });
    expect((await call("GET", "/api/webhooks", { user: revoked })).body.error.code).toBe("session_revoked");
    const expired = await createTestUser(db.url, { sessionExpiresAt: new Date(Date.now() - 1000) });
    const e = await call("GET", "/api/webhooks", { user: expired });
    expect([e.status, e.body.error.code]).toEqual([403, "session_expired"]);
    const viaCookie = await call("GET", "/api/webhooks", { cookie: true });
    expect(viaCookie.status).toBe(200);
    expect((await call("GET", "/api/webhooks", { user: null, headers: { cookie: "al_session=forged" } })).status).toBe(401);
    expect((await call("GET", "/api/webhooks", { user: null, headers: { cookie: "al_session=%%%; other=%E0%A4%A" } })).status).toBe(401);
  });
});

describe("ownership and limits", () => {
  it("user B gets 404 on user A's subscription for every endpoint", async () => {
    const a = (await call("POST", "/api/webhooks", { body: valid })).body;
    const {
      rows: [d],
    } = await sql.query("SELECT id FROM webhook_deliveries WHERE subscription_id = $1", [a.id]);
    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/webhooks/${a.id}`],
      ["DELETE", `/api/webhooks/${a.id}`],
      ["POST", `/api/webhooks/${a.id}/verify`, { verify_token: a.verify_token }],
      ["POST", `/api/webhooks/${a.id}/rotate-secret`],
      ["POST", `/api/webhooks/${a.id}/pause`],
      ["POST", `/api/webhooks/${a.id}/resume`],
      ["GET", `/api/webhooks/${a.id}/deliveries`],
      ["POST", `/api/webhooks/${a.id}/deliveries/${d.id}/redeliver`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, { user: bob, body });
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, "not_found"]);
    }
    expect((await call("GET", "/api/webhooks", { user: bob })).body.items.map((i: { id: string }) => i.id)).not.toContain(a.id);
    // Untouched by all of that.
    expect((await call("GET", `/api/webhooks/${a.id}`)).body.status).toBe("pending_verify");
  });

  it("refuses the 26th non-deleted subscription, also under 30 concurrent creates", async () => {
    const carol = await createTestUser(db.url);
    const results = await Promise.all(Array.from({ length: 30 }, () => call("POST", "/api/webhooks", { user: carol, body: valid })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(25);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(5).fill([409, "limit_reached"]));
    const one = results.find((r) => r.status === 201)!.body.id;
    expect((await call("DELETE", `/api/webhooks/${one}`, { user: carol })).body).toEqual({ ok: true, id: one, status: "deleted" });
    expect((await call("POST", "/api/webhooks", { user: carol, body: valid })).status).toBe(201); // deleted ones do not count
    expect((await call("POST", "/api/webhooks", { user: carol, body: valid })).status).toBe(409);
  });
});

describe("state machine through the API", () => {
  it("verify (wrong token, right token, expired), pause, resume, delete", async () => {
    const sub = (await call("POST", "/api/webhooks", { body: valid })).body;
    const wrong = await call("POST", `/api/webhooks/${sub.id}/verify`, { body: { verify_token: "whvt_wrong" } });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, "invalid_verify_token"]);
    expect((await call("POST", `/api/webhooks/${sub.id}/resume`)).body.error.code).toBe("invalid_state");
    expect((await call("POST", `/api/webhooks/${sub.id}/pause`)).status).toBe(409);
    // The receiver may verify without credentials: the token is the proof.
    expect((await call("POST", `/api/webhooks/${sub.id}/verify`, { user: null, body: { verify_token: sub.verify_token } })).body).toEqual({
      ok: true,
      status: "active",
    });
    expect((await call("POST", `/api/webhooks/${sub.id}/pause`)).body).toMatchObject({ ok: true, status: "paused" });
    expect((await call("POST", `/api/webhooks/${sub.id}/pause`)).body.status).toBe("paused"); // idempotent
    await sql.query("UPDATE webhook_subscriptions SET status = 'disabled_by_failures', consecutive_failures = 5 WHERE id = $1", [sub.id]);
    expect((await call("POST", `/api/webhooks/${sub.id}/resume`)).body).toMatchObject({ ok: true, status: "active", consecutive_failures: 0 });
    expect((await call("DELETE", `/api/webhooks/${sub.id}`)).status).toBe(200);
    for (const [m, p] of [
      ["GET", ""],
      ["DELETE", ""],
      ["POST", "/pause"],
      ["POST", "/resume"],
    ] as const) {
      expect((await call(m, `/api/webhooks/${sub.id}${p}`)).status).toBe(404);
    }
  });

  it("an expired verify token answers 410", async () => {
    const later = await startTestApp(db.url, { webhooks: { masterKey, production: false }, now: () => new Date(Date.now() + 24 * 3600 * 1000 + 60_000) });
    try {
      const dave = await createTestUser(db.url, { sessionExpiresAt: new Date(Date.now() + 7 * 24 * 3600 * 1000) });
      const sub = (await call("POST", "/api/webhooks", { user: dave, body: valid })).body;
      const res = await call("POST", `/api/webhooks/${sub.id}/verify`, { base: later.url, user: dave, body: { verify_token: sub.verify_token } });
      expect([res.status, res.body.error.code]).toEqual([410, "verify_token_expired"]);
    } finally {
      await later.close();
    }
  });

  it("rotate-secret is a hard cutover to a new secret shown once", async () => {
    const sub = (await call("POST", "/api/webhooks", { body: valid })).body;
    const rotated = await call("POST", `/api/webhooks/${sub.id}/rotate-secret`);
    expect(Object.keys(rotated.body)).toEqual(["signing_secret"]);
    expect(rotated.body.signing_secret).not.toBe(sub.signing_secret);
    const {
      rows: [row],
    } = await sql.query("SELECT signing_secret_ciphertext FROM webhook_subscriptions WHERE id = $1", [sub.id]);
    expect(openSecret(row.signing_secret_ciphertext, masterKey, sub.id)).toBe(rotated.body.signing_secret);
  });
});

describe("delivery log", () => {
  it("pages by cursor newest first, and redeliver re-arms a dead delivery with the same id", async () => {
    const sub = (await call("POST", "/api/webhooks", { body: valid })).body;
    for (let i = 0; i < 4; i++) {
      await sql.query(
        "INSERT INTO webhook_deliveries (subscription_id, event_id, type, status, attempts, last_http_status, created_at) VALUES ($1, $2, 'event', 'dead', 8, 500, now() - make_interval(secs => $3))",
        [sub.id, 1000 + i, 10 - i],
      );
    }
    const first = await call("GET", `/api/webhooks/${sub.id}/deliveries?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(Object.keys(first.body.items[0]).sort()).toEqual([
      "attempts",
      "completed_at",
      "created_at",
      "event_id",
      "id",
      "last_attempt_at",
      "last_error",
      "last_http_status",
      "last_request_body",
      "last_request_headers",
      "last_response_ms",
      "next_attempt_at",
      "status",
      "type",
      "updated_at",
    ]);
    // never attempted: no request to show yet
    expect(first.body.items[0]).toMatchObject({ last_request_body: null, last_request_headers: null });
    const second = await call("GET", `/api/webhooks/${sub.id}/deliveries?limit=2&cursor=${first.body.next_cursor}`);
    const third = await call("GET", `/api/webhooks/${sub.id}/deliveries?limit=2&cursor=${second.body.next_cursor}`);
    const all = [...first.body.items, ...second.body.items, ...third.body.items];
    expect(all.map((d) => d.type)).toEqual(["verify", "event", "event", "event", "event"]);
    expect(new Set(all.map((d) => d.id)).size).toBe(5);
    expect(third.body.next_cursor).toBeNull();
    expect((await call("GET", `/api/webhooks/${sub.id}/deliveries?cursor=garbage`)).body.error.code).toBe("invalid_cursor");
    expect((await call("GET", `/api/webhooks/${sub.id}/deliveries?limit=0`)).body.error.code).toBe("invalid_limit");
    // ?status= keeps one status (the documented filter), pages over the filtered rows, and refuses an unknown one.
    const deadOnly = await call("GET", `/api/webhooks/${sub.id}/deliveries?status=dead&limit=3`);
    expect(deadOnly.body.items.map((d: { status: string }) => d.status)).toEqual(["dead", "dead", "dead"]);
    const deadRest = await call("GET", `/api/webhooks/${sub.id}/deliveries?status=dead&limit=3&cursor=${deadOnly.body.next_cursor}`);
    expect(deadRest.body).toMatchObject({ items: [{ status: "dead" }], next_cursor: null });
    const verifyStatus = all.find((d) => d.type === "verify")!.status;
    expect(verifyStatus).not.toBe("dead");
    const others = await call("GET", `/api/webhooks/${sub.id}/deliveries?status=${verifyStatus}`);
    expect(others.body.items.map((d: { type: string }) => d.type)).toEqual(["verify"]);
    const unknown = await call("GET", `/api/webhooks/${sub.id}/deliveries?status=lost`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toEqual({ code: "invalid_query", message: "status must be one of pending, retrying, succeeded, dead" });

    const dead = all.find((d) => d.type === "event")!;
    const re = await call("POST", `/api/webhooks/${sub.id}/deliveries/${dead.id}/redeliver`);
    expect(re.status).toBe(202);
    expect(re.body.delivery).toMatchObject({ id: dead.id, status: "retrying", attempts: 8 });
    expect(Math.abs(new Date(re.body.delivery.next_attempt_at).getTime() - Date.now())).toBeLessThan(5_000);
    expect((await call("POST", `/api/webhooks/${sub.id}/deliveries/00000000-0000-0000-0000-000000000000/redeliver`)).status).toBe(404);
    expect((await call("POST", `/api/webhooks/${sub.id}/deliveries/not-a-uuid/redeliver`)).status).toBe(404);
  });

  it("pages through deliveries created in the same millisecond (one dispatch pass writes many at one now()) without skipping any", async () => {
    const sub = (await call("POST", "/api/webhooks", { body: valid })).body;
    // microseconds within one millisecond, later than the truncated millisecond a toISOString cursor would carry
    for (let i = 0; i < 5; i++) {
      await sql.query(
        "INSERT INTO webhook_deliveries (subscription_id, event_id, type, status, created_at) VALUES ($1, $2, 'event', 'pending', $3::timestamptz)",
        [sub.id, 2000 + i, `2026-11-25T10:00:00.123${456 + i}Z`],
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await call("GET", `/api/webhooks/${sub.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((d: { id: string }) => d.id));
      cursor = res.body.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(6); // 5 events and the verification ping
    expect(new Set(seen).size).toBe(6);
  });

  it("unknown paths and methods answer JSON errors", async () => {
    expect((await call("PUT", "/api/webhooks")).status).toBe(405);
    expect((await call("GET", "/api/webhooks/whs_x/nope")).status).toBe(404);
    expect((await call("GET", "/api/webhooks/%E0%A4%A")).status).toBe(404);
  });
});

describe("GraphQL webhook operations (same service, same codes)", () => {
  async function gql(query: string, variables: Record<string, unknown> = {}, user: TestUser | null = alice) {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(user ? { authorization: `Bearer ${user.bearer}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return res.json() as Promise<{ data?: Record<string, any>; errors?: { message: string; extensions?: { code?: string } }[] }>;
  }
  const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id status callbackUrl label signingSecret verifyToken filters { agentId minAmountWei tokenAddress } } }`;

  it("creates, lists, verifies, pauses, resumes and deletes through mutations", async () => {
    const created = await gql(CREATE, {
      input: {
        callbackUrl: "http://127.0.0.1:9/gql",
        label: "gql",
        filters: { agentId: "demo-agent", minAmountWei: "5", tokenAddress: "0x20C0000000000000000000000000000000000000" },
      },
    });
    expect(created.errors).toBeUndefined();
    const w = created.data!.createWebhook;
    expect(w).toMatchObject({
      status: "pending_verify",
      callbackUrl: "http://127.0.0.1:9/gql",
      label: "gql",
      filters: { agentId: "demo-agent", minAmountWei: "5", tokenAddress: "0x20c0000000000000000000000000000000000000" },
    });
    expect(w.signingSecret).toMatch(/^whsec_/);

    const listed = await gql(`{ webhooks { id status deliveryCounts { pending total } } }`);
    expect(listed.data!.webhooks.find((x: { id: string }) => x.id === w.id)).toEqual({
      id: w.id,
      status: "pending_verify",
      deliveryCounts: { pending: 1, total: 1 },
    });
    expect(
      (await gql(`mutation($id: ID!, $t: String!) { verifyWebhook(id: $id, verifyToken: $t) { ok status } }`, { id: w.id, t: w.verifyToken })).data!
        .verifyWebhook,
    ).toEqual({ ok: true, status: "active" });
    expect((await gql(`mutation($id: ID!) { pauseWebhook(id: $id) { status } }`, { id: w.id })).data!.pauseWebhook.status).toBe("paused");
    expect((await gql(`mutation($id: ID!) { resumeWebhook(id: $id) { status consecutiveFailures } }`, { id: w.id })).data!.resumeWebhook).toEqual({
      status: "active",
      consecutiveFailures: 0,
    });
    const deliveries = await gql(`query($id: ID!) { webhookDeliveries(id: $id, first: 5) { items { id type status } nextCursor } }`, { id: w.id });
    expect(deliveries.data!.webhookDeliveries.items).toEqual([{ id: expect.any(String), type: "verify", status: "pending" }]);
    expect((await gql(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { signingSecret } }`, { id: w.id })).data!.rotateWebhookSecret.signingSecret).not.toBe(
      w.signingSecret,
    );
    expect((await gql(`mutation($id: ID!) { deleteWebhook(id: $id) { ok status } }`, { id: w.id })).data!.deleteWebhook).toEqual({
      ok: true,
      status: "deleted",
    });
    expect((await gql(`query($id: ID!) { webhook(id: $id) { id } }`, { id: w.id })).data!.webhook).toBeNull();
  });

  it("returns the REST error codes in extensions.code", async () => {
    const unauth = await gql(`{ webhooks { id } }`, {}, null);
    expect(unauth.errors![0]!.extensions!.code).toBe("unauthorized");
    const invalid = await gql(CREATE, { input: { callbackUrl: "http://example.com/x", filters: { agentId: "demo-agent" } } });
    expect(invalid.errors![0]!.extensions!.code).toBe("invalid_callback_url");
    const unknown = await gql(CREATE, { input: { callbackUrl: "http://127.0.0.1:9/x", filters: { agentId: "nobody" } } });
    expect(unknown.errors![0]!.extensions!.code).toBe("unknown_agent");
    const mine = (await gql(CREATE, { input: { callbackUrl: "http://127.0.0.1:9/x", filters: { agentId: "demo-agent" } } })).data!.createWebhook.id;
    expect((await gql(`query($id: ID!) { webhook(id: $id) { id } }`, { id: mine }, bob)).data!.webhook).toBeNull();
    const foreign = await gql(`mutation($id: ID!) { pauseWebhook(id: $id) { status } }`, { id: mine }, bob);
    expect(foreign.errors![0]!.extensions!.code).toBe("not_found");
  });
});
