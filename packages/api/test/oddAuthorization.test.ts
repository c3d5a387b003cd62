import { randomBytes, randomUUID } from "node:crypto";
import net from "node:net";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isErrorCode } from "../src/errors.ts";
import { listRoutes, ROUTE_TABLE } from "./support/routeList.ts";
import { silentLog, startTestApp, type TestApp } from "./support/startTestApp.ts";
import { SPONSOR_KEY } from "./support/walletApp.ts";
import { createTestUser, type TestUser } from "./support/walletFixtures.ts";

// A 500 was once seen on POST /api/wallet/webauthn/register/options with an odd bearer header. Every authenticated
// route family (wallet, owner console, webhooks, GraphQL) gets every odd Authorization value, sent as raw bytes on a
// socket (fetch refuses most of them): never a 5xx, always a 4xx with the error body and a code of the one table.

const ODD_AUTHORIZATION: [string, string][] = [
  ["Bearer alone", "Bearer"],
  ["Bearer and a space", "Bearer "],
  ["two spaces", "Bearer  abcdefghijklmnopqrstuvwxyz012345"],
  ["lowercase scheme", "bearer abcdefghijklmnopqrstuvwxyz012345"],
  ["upper-case scheme", "BEARER abcdefghijklmnopqrstuvwxyz012345"],
  ["another scheme", "Basic dXNlcjpwYXNz"],
  ["empty", ""],
  ["a tab inside", "Bearer\tabcdefghijklmnopqrstuvwxyz012345"],
  ["control characters", "Bearer \x01\x02\x7f abc"],
  ["NUL", "Bearer abc\x00def"],
  ["escape", "Bearer \x1b[31mred"],
  ["non-ASCII (Latin-1 bytes)", "Bearer \u00ff\u00fe\u00e9t\u00e9"],
  ["non-ASCII (UTF-8 bytes)", "Bearer " + Buffer.from("пароль🔑", "utf8").toString("latin1")],
  ["very long (8 KiB)", "Bearer " + "x".repeat(8 * 1024)],
  ["very long (20 KiB)", "Bearer " + "x".repeat(20 * 1024)],
  ["just too short", "Bearer " + "a".repeat(15)],
  ["just too long", "Bearer " + "a".repeat(513)],
  ["a well-formed unknown token", "Bearer " + "a".repeat(43)],
  ["a token with a percent escape", "Bearer %00%ff" + "a".repeat(20)],
  ["trailing garbage", "Bearer " + "a".repeat(43) + " extra"],
];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
/** A real user: its bearer token and session cookie are accepted when sent once. */
let user: TestUser;
/** Routes that answer 401 without credentials: the authenticated ones, which must refuse every odd header too. */
const authenticated = new Set<string>();

const walletRoutes = listRoutes(ROUTE_TABLE.wallet).map((r) => ({ method: r.method, path: r.path.replace(":id", randomUUID()) }));
const webhookRoutes = listRoutes(ROUTE_TABLE.webhooks).map((r) => ({ method: r.method, path: r.path.replace(/:\w+/g, "whs_0000000000000000") }));
const ROUTES = [...walletRoutes, ...webhookRoutes, { method: "POST", path: "/graphql" }];

/**
 * One raw HTTP/1.1 request whose Authorization header is `authorization` byte for byte (latin1); an array sends one
 * Authorization header per value, and `extraHeaders` are further raw header lines (two Cookie lines).
 */
function rawRequest(
  method: string,
  path: string,
  authorization: string | string[] | null,
  extraHeaders: string[] = [],
): Promise<{ status: number; body: string }> {
  const { port } = new URL(t.url);
  const body =
    path === "/graphql"
      ? JSON.stringify({ query: "{ __typename }" })
      : path === "/mcp"
        ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
        : method === "POST"
          ? "{}"
          : "";
  const authorizations = authorization === null ? [] : Array.isArray(authorization) ? authorization : [authorization];
  const head = [
    `${method} ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    ...authorizations.map((a) => `authorization: ${a}`),
    ...extraHeaders,
    "content-type: application/json",
    ...(path === "/mcp" ? ["accept: application/json, text/event-stream"] : []),
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    "",
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.setTimeout(20_000, () => socket.destroy());
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) return resolve({ status: 0, body: `(no HTTP answer: ${JSON.stringify(text.slice(0, 200))})` });
      const at = text.indexOf("\r\n\r\n");
      resolve({ status: Number(m[1]), body: at >= 0 ? text.slice(at + 4) : "" });
    });
    // written, not ended: a half-closed socket makes Node's server drop the answers still being computed
    socket.write(Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)]));
  });
}

/** The code of an error body (REST `error.code`, GraphQL `errors[0].extensions.code`), chunked encoding undone. */
function codeOf(body: string): unknown {
  const json = body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1);
  const parsed = JSON.parse(json) as { error?: { code?: unknown; message?: unknown }; errors?: { extensions?: { code?: unknown } }[] };
  if (parsed.error) {
    expect(typeof parsed.error.message).toBe("string");
    return parsed.error.code;
  }
  return parsed.errors?.[0]?.extensions?.code;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const masterKey = randomBytes(32);
  t = await startTestApp(db.url, {
    webhooks: { masterKey, production: false },
    wallet: {
      masterKey,
      production: false,
      publicBaseUrl: "http://localhost:3000/",
      rpcUrl: "http://127.0.0.1:9",
      sponsorPrivateKey: SPONSOR_KEY,
      rateLimitPrefix: `al:rl:oddauth:${randomUUID()}`,
      startPerMinute: 0,
      codePerMinute: 0,
      codePerUserPerMinute: 0,
      webauthnOptionsPerMinute: 0,
      relayPerMinute: 0,
    },
  });
  for (const route of ROUTES) {
    if ((await rawRequest(route.method, route.path, null)).status === 401) authenticated.add(`${route.method} ${route.path}`);
  }
  user = await createTestUser(db.url);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await db?.drop();
});

describe("odd Authorization headers", () => {
  it("cover every authenticated route family", () => {
    expect(walletRoutes.some((r) => r.path === "/api/wallet/webauthn/register/options")).toBe(true);
    expect(walletRoutes.some((r) => r.path.startsWith("/api/wallet/sessions/"))).toBe(true); // the owner console
    expect(webhookRoutes.length).toBeGreaterThan(5);
    expect(authenticated.has("POST /api/wallet/pay")).toBe(true);
    expect(authenticated.has("GET /api/wallet/sessions")).toBe(true);
    expect(authenticated.has("GET /api/webhooks")).toBe(true);
    expect(authenticated.size).toBeGreaterThan(20);
  });

  it.each(ODD_AUTHORIZATION)(
    "%s: no 5xx, a coded 4xx on every route",
    async (_name, authorization) => {
      const failures: string[] = [];
      for (const route of ROUTES) {
        const answer = await rawRequest(route.method, route.path, authorization);
        const refuses = authenticated.has(`${route.method} ${route.path}`);
        // a route without authentication (webauthn/*/options, device/start, logout, relay, the public GraphQL query)
        // ignores the header and may answer 2xx
        if (answer.status >= 200 && answer.status < 300 && !refuses) continue;
        let code: unknown;
        try {
          code = codeOf(answer.body);
        } catch {
          code = `(no JSON body: ${answer.body.slice(0, 80)})`;
        }
        if (answer.status < 400 || answer.status >= 500 || !isErrorCode(code))
          failures.push(`${route.method} ${route.path} → ${answer.status} ${String(code)}`);
      }
      expect(failures).toEqual([]);
    },
    120_000,
  );
});

// Two Authorization headers: Node keeps the first in req.headers and drops the others, while a proxy in front may act
// on the last one — the two would authenticate different callers. Every path refuses them, before routing.
describe("two Authorization headers on one request", () => {
  const valid = () => `Bearer ${user.bearer}`;
  const other = "Bearer " + "a".repeat(43);
  /** Every route family, the read API, MCP, the feed, the operations endpoints and GraphQL (both endpoints). */
  const EVERY_PATH = [
    ...ROUTES,
    { method: "GET", path: "/api/dashboard" },
    { method: "POST", path: "/mcp" },
    { method: "GET", path: "/api/feed" },
    { method: "GET", path: "/healthz" },
    { method: "POST", path: "/graphql/stream" },
  ];

  it("the user's bearer token alone is accepted (the control: it is the duplicate that is refused)", async () => {
    expect((await rawRequest("GET", "/api/wallet/session", valid())).status).toBe(200);
    expect((await rawRequest("GET", "/api/webhooks", valid())).status).toBe(200);
  });

  it.each([
    ["a valid token first, another last", () => [valid(), other]],
    ["another first, the valid token last", () => [other, valid()]],
    ["the same valid token twice", () => [valid(), valid()]],
    ["an empty one and the valid token", () => ["", valid()]],
  ] as const)(
    "%s: 400 duplicate_authorization with the error body on every path",
    async (_name, headers) => {
      const failures: string[] = [];
      for (const route of EVERY_PATH) {
        const answer = await rawRequest(route.method, route.path, [...headers()]);
        let code: unknown;
        try {
          code = codeOf(answer.body);
        } catch {
          code = `(no JSON body: ${answer.body.slice(0, 80)})`;
        }
        if (answer.status !== 400 || code !== "duplicate_authorization") failures.push(`${route.method} ${route.path} → ${answer.status} ${String(code)}`);
      }
      expect(failures).toEqual([]);
    },
    120_000,
  );

  it('two Cookie headers are one cookie list (joined with "; ", as HTTP/2 splits them): the session cookie in the second is read', async () => {
    const answer = await rawRequest("GET", "/api/wallet/me", null, ["cookie: theme=dark", `cookie: al_session=${user.cookie}`]);
    expect(answer.status, answer.body).toBe(200);
  });
});
