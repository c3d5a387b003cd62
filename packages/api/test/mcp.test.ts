import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { METHODOLOGY_URI, REGISTRY_URI } from "@agent-ledger/mcp";
import { ENTITY_URI_TEMPLATE, EVENT_URI_TEMPLATE } from "../../mcp/src/registerResources.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, InitializeResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { PATH_USD, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import pg from "pg";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_BIN } from "../../cli/test/support/spawnCli.ts";
import { seedDevnetLedger, type SeededLedger } from "./support/seedDevnetLedger.ts";
import { SoftAuthenticator } from "./support/softAuthenticator.ts";
import { call, startWalletApp, type WalletTestApp } from "./support/walletApp.ts";
import { fund, funder, pairAgent } from "./support/walletFlow.ts";

// The MCP server (packages/mcp) through the SDK's own Client over both transports: Streamable HTTP at /mcp on the
// real API, and stdio from the real `agent-ledger mcp` process. The ledger is built by the real indexer from devnet
// payments (seedDevnetLedger); every read tool's answer is compared with the API's own GraphQL answer to a query
// written here. Payments run on a second devnet through the real wallet (passkey pairing, caps, sponsor).

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let seeded: SeededLedger;
let walletAnvil: AnvilInstance;
let t: WalletTestApp;
let sql: pg.Client;
let bearer: string;
let sessionId: string;
let managed: Hex;
const dirs: string[] = [];
const clients: Client[] = [];

const TOOLS = [
  "create_webhook",
  "delete_webhook",
  "get_agent",
  "get_dashboard",
  "get_event",
  "get_provider",
  "get_service",
  "get_webhook",
  "list_deliveries",
  "list_events_since",
  "list_payments",
  "list_recent_events",
  "list_webhooks",
  "pause_webhook",
  "pay",
  "recover_webhook",
  "redeliver_webhook_delivery",
  "resume_webhook",
  "rotate_webhook_secret",
  "search",
  "test_webhook",
  "verify_webhook",
  "wallet_status",
];

async function httpClient(token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(`${t.url}/mcp`),
    token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined,
  );
  const client = new Client({ name: "mcp-test-http", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** `agent-ledger --api <url> mcp` with a config dir holding a pairing (or none), as an MCP client runtime starts it. */
async function stdioClient(token?: string): Promise<Client> {
  const dir = await mkdtemp(join(tmpdir(), "al-mcp-"));
  dirs.push(dir);
  if (token) {
    const session = {
      api: t.url,
      access_token: token,
      token_type: "Bearer",
      session_id: sessionId,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      agent_key_address: "0x0",
      managed_address: managed,
      spend_cap_wei: "3000000",
      per_call_cap_wei: "2000000",
      token: PATH_USD,
      agent_label: "mcp test",
      paired_at: new Date().toISOString(),
    };
    await writeFile(join(dir, "credentials.json"), JSON.stringify({ version: 1, current: t.url, sessions: { [t.url]: session } }), { mode: 0o600 });
  }
  const env: Record<string, string> = { AGENT_LEDGER_CONFIG_DIR: dir };
  for (const k of ["PATH", "HOME", "TMPDIR", "NODE_OPTIONS"]) if (process.env[k]) env[k] = process.env[k]!;
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, "--api", t.url, "mcp"], env, stderr: "pipe" });
  const client = new Client({ name: "mcp-test-stdio", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = await res.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual(r.structuredContent); // the same JSON as text
  return r.structuredContent;
}

/** A tool error's `{ code, message, status?, … }` (the API's code). */
async function toolError(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; message: string; status?: number; hint?: string; idempotency_key?: string }> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, `${name} should fail: ${JSON.stringify(r)}`).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return JSON.parse((r.content as { text: string }[])[0]!.text).error;
}

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Hex;
const balance = async (address: Hex) => (await funder(walletAnvil.url).token.getBalance({ token: PATH_USD, account: address })).amount;
const paymentsOf = async (session: string) =>
  (await sql.query("SELECT status, amount_wei::text AS amount, tx_hash FROM wallet_payments WHERE session_id = $1 ORDER BY created_at", [session])).rows;

beforeAll(async () => {
  db = await createTestDatabase();
  seeded = await seedDevnetLedger(db.url);
  walletAnvil = await startAnvil();
  t = await startWalletApp(db.url, walletAnvil.url, { pollIntervalSeconds: 0 });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const paired = await pairAgent(t.url, walletAnvil.url, {
    authn: new SoftAuthenticator(),
    grant: { spend_cap_wei: "3000000", per_call_cap_wei: "2000000" },
    label: "mcp test",
  });
  bearer = paired.token.access_token;
  sessionId = paired.token.session_id;
  managed = paired.token.managed_address;
  await fund(walletAnvil.url, managed, 50_000_000n);
}, 240_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await sql?.end();
  await t?.close();
  await walletAnvil?.stop();
  await seeded?.stop();
  await db?.drop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

// The test's own GraphQL (the same fields the tools promise), asked of the API directly.
const EV = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei tokenAddress txHash logIndex
  sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl attribution clientFingerprint clientLabel channelId`;
const TA = "{ tokenAddress symbol decimals currency txCount amountSumWei }";
const BT = `byToken ${TA}`;
const PROV = `key pattern address fingerprint label txCount amountSumWei ${BT} firstSeenAt lastSeenAt`;
const TOP = `id label category txCount amountSumWei ${BT}`;
const DETAIL = (events: number) => `id label category kind active wallets txCount24h amountSumWei24h byToken24h ${TA} txCount7d amountSumWei7d byToken7d ${TA}
  lastEventAt totals { txCount amountSumWei feeCount feeSumWei ${BT} feesByToken ${TA} } trend { day txCount amountSumWei ${BT} }
  recentEvents(first: ${events}) { items { ${EV} } nextCursor } providers(first: 20) { items { ${PROV} } nextCursor }`;

describe.each(["http", "stdio"] as const)("over %s", (transport) => {
  let client: Client;
  beforeAll(async () => {
    client = transport === "http" ? await httpClient(bearer) : await stdioClient(bearer);
  }, 60_000);

  it("lists every tool with an input schema, an output schema and a description, and both resources", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(TOOLS);
    for (const x of tools) {
      expect(x.inputSchema.type, x.name).toBe("object");
      expect(x.outputSchema?.type, x.name).toBe("object");
      expect(x.description?.length, x.name).toBeGreaterThan(60);
    }
    expect(tools.find((x) => x.name === "pay")!.inputSchema.required).toEqual(["to", "amount"]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([METHODOLOGY_URI, REGISTRY_URI].sort());
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate).sort()).toEqual([ENTITY_URI_TEMPLATE, EVENT_URI_TEMPLATE]);
  });

  it("advertises no list-changed notifications (a stateless server never sends them)", () => {
    const caps = client.getServerCapabilities()!;
    expect(caps.tools).toEqual({});
    expect(caps.resources).toEqual({});
  });

  it("marks pay irreversible and not idempotent (only a re-used key is), the webhook secret rotation destructive", async () => {
    const { tools } = await client.listTools();
    const annotations = (name: string) => tools.find((x) => x.name === name)!.annotations;
    expect(annotations("pay")).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(annotations("rotate_webhook_secret")).toMatchObject({ destructiveHint: true, idempotentHint: false });
    expect(annotations("get_event")).toMatchObject({ readOnlyHint: true });
  });

  it("answers params that do not fit a method with -32602 (invalid params) and a short message", async () => {
    const bad = client.request({ method: "tools/call", params: { arguments: {} } as never }, CallToolResultSchema);
    const error = await bad.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toBe("MCP error -32602: invalid params of tools/call: params.name: Invalid input: expected string, received undefined");
    expect((error as McpError).message.length).toBeLessThan(300);
  });

  it("answers every read tool exactly as GraphQL answers the same question", async () => {
    for (const window of ["24h", "7d", "30d", "all"]) {
      const expected = await gql(
        `query($w: String!) { dashboard(window: $w) { window windowHours txCount amountSumWei ${BT} agentsActive providersDetected
        topServices { ${TOP} } topAgents { ${TOP} } topProviders { ${PROV} } recentEvents { ${EV} } } }`,
        { w: window },
      );
      expect(await tool(client, "get_dashboard", { window }), window).toEqual(expected.dashboard);
    }
    const dash = await tool(client, "get_dashboard", {}); // default 24h
    expect(dash.window).toBe("24h");
    expect(dash.txCount).toBeGreaterThan(50); // a real ledger, not an empty one

    const anEvent = dash.recentEvents[0];
    for (const q of ["weather", anEvent.txHash, anEvent.counterpartyAddress, "Demo agent"]) {
      const expected = await gql(
        `query($q: String!) { search(q: $q) { q events(first: 20) { items { ${EV} } nextCursor }
        entities(first: 20) { items { id label category kind wallets } nextCursor } addresses(first: 20) { items { address label category source } nextCursor } } }`,
        { q },
      );
      expect(await tool(client, "search", { q }), q).toEqual(expected.search);
    }

    for (const id of ["tempo-gateway-mpp", "weather-api-mpp"]) {
      const expected = await gql(`query($id: ID!) { service(id: $id) { ${DETAIL(20)} } }`, { id });
      expect(await tool(client, "get_service", { id }), id).toEqual(expected.service);
    }
    const gateway = await tool(client, "get_service", { id: "tempo-gateway-mpp" });
    expect(gateway.providers.items.length).toBeGreaterThan(0);
    const agent = await gql(`query { agent(id: "demo-agent-alpha") { ${DETAIL(5)} } }`);
    expect(await tool(client, "get_agent", { id: "demo-agent-alpha", recent_events: 5 })).toEqual(agent.agent);

    const expectedEvent = await gql(`query($id: ID!) { event(id: $id) { ${EV} relatedEvents { ${EV} } session { channelId } } }`, { id: anEvent.id });
    expect(expectedEvent.event.session).toBeNull(); // a v0.1 row (session rows: events.v03.test.ts)
    expect(await tool(client, "get_event", { id: anEvent.id })).toEqual(expectedEvent.event);
    expect(await tool(client, "get_event", { id: Number(anEvent.id) })).toEqual(expectedEvent.event); // a JSON number too

    const first = await tool(client, "list_recent_events", { entity_id: "demo-agent-alpha", limit: 7 });
    const page1 = await gql(`query { agent(id: "demo-agent-alpha") { recentEvents(first: 7) { items { ${EV} } nextCursor } } }`);
    expect(first).toEqual({ entityId: "demo-agent-alpha", ...page1.agent.recentEvents });
    const second = await tool(client, "list_recent_events", { entity_id: "demo-agent-alpha", limit: 7, cursor: first.nextCursor });
    const page2 = await gql(
      `query($after: String) { agent(id: "demo-agent-alpha") { recentEvents(first: 7, after: $after) { items { ${EV} } nextCursor } } }`,
      { after: first.nextCursor },
    );
    expect(second).toEqual({ entityId: "demo-agent-alpha", ...page2.agent.recentEvents });
    const svcEvents = await gql(`query { service(id: "weather-api-mpp") { recentEvents(first: 3) { items { ${EV} } nextCursor } } }`);
    expect(await tool(client, "list_recent_events", { entity_id: "weather-api-mpp", limit: 3 })).toEqual({
      entityId: "weather-api-mpp",
      ...svcEvents.service.recentEvents,
    });
    const latest = await gql(`query { dashboard(window: "24h") { recentEvents { ${EV} } } }`);
    expect(await tool(client, "list_recent_events", { limit: 5 })).toEqual({
      entityId: null,
      items: latest.dashboard.recentEvents.slice(0, 5),
      nextCursor: null,
    });

    for (const p of gateway.providers.items as { key: string; address: string | null }[]) {
      const expected = await gql(`query($key: String!) { provider(key: $key) { ${PROV} } }`, { key: p.key });
      expect(await tool(client, "get_provider", { key: p.key.toUpperCase().replace("0X", "0x") }), p.key).toEqual(expected.provider);
    }
  });

  it("serves the methodology document and the registry of watched entities as resources", async () => {
    const m = await client.readResource({ uri: METHODOLOGY_URI });
    expect(m.contents[0]).toMatchObject({ uri: METHODOLOGY_URI, mimeType: "text/markdown" });
    expect((m.contents[0] as { text: string }).text).toBe(await readFile(new URL("../../../docs/methodology.md", import.meta.url), "utf8"));
    const r = await client.readResource({ uri: REGISTRY_URI });
    const expected = await gql("query { services { id label category kind active wallets } agents { id label category kind active wallets } }");
    expect(JSON.parse((r.contents[0] as { text: string }).text)).toEqual(expected);
    expect(expected.services.map((s: { id: string }) => s.id)).toContain("tempo-gateway-mpp");
  });

  it("pages each search list with the cursor it returned", async () => {
    const q = "demo";
    const pageOf = async (list: "events" | "entities" | "addresses", after: string | null) =>
      (
        await gql(
          `query($q: String!, $after: String) { search(q: $q) { ${list}(first: 1, after: $after) { items { ${list === "events" ? EV : list === "entities" ? "id label category kind wallets" : "address label category source"} } nextCursor } } }`,
          { q, after },
        )
      ).search[list];
    const first = await tool(client, "search", { q, limit: 1 });
    expect(first.entities).toEqual(await pageOf("entities", null));
    expect(first.entities.nextCursor).toBeTruthy(); // more than one demo entity
    const second = await tool(client, "search", { q, limit: 1, entities_cursor: first.entities.nextCursor });
    expect(second).toEqual({ q, entities: await pageOf("entities", first.entities.nextCursor) }); // only the list being paged
    expect(second.entities.items[0].id).not.toBe(first.entities.items[0].id);
    expect(await toolError(client, "search", { q, entities_cursor: "not-a-cursor" })).toMatchObject({ code: "invalid_cursor", status: 400 });
  });

  it("follows an entity's new rows since an id, oldest first, without a gap or a repeat", async () => {
    const newest = (await gql(`query { agent(id: "demo-agent-alpha") { recentEvents(first: 8) { items { ${EV} } } } }`)).agent.recentEvents.items;
    const start = newest[7].id; // 7 rows are newer
    const expected = newest.slice(0, 7).reverse();
    const a = await tool(client, "list_events_since", { entity_id: "demo-agent-alpha", after_id: Number(start), limit: 3 });
    expect(a).toEqual({ entityId: "demo-agent-alpha", afterId: start, items: expected.slice(0, 3), lastId: expected[2].id, more: true });
    const b = await tool(client, "list_events_since", { entity_id: "demo-agent-alpha", after_id: a.lastId, limit: 3 });
    const c = await tool(client, "list_events_since", { entity_id: "demo-agent-alpha", after_id: b.lastId, limit: 3 });
    expect([...a.items, ...b.items, ...c.items]).toEqual(expected);
    expect(c.more).toBe(false);
    const none = await tool(client, "list_events_since", { entity_id: "demo-agent-alpha", after_id: c.lastId });
    expect(none).toMatchObject({ items: [], lastId: c.lastId, more: false });
    // from the first row: every row of the entity, in id order
    const all = await tool(client, "list_events_since", { entity_id: "weather-api-mpp", after_id: "0", limit: 100 });
    const ids = all.items.map((e: { id: string }) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => (x < y ? -1 : 1)));
    expect(ids.length).toBeGreaterThan(10);
  });

  it("reads one entity and one ledger row through the resource templates", async () => {
    const entity = await client.readResource({ uri: "agent-ledger://entities/demo-agent-alpha" });
    const expectedAgent = await gql(`query { agent(id: "demo-agent-alpha") { ${DETAIL(20)} } }`);
    expect(entity.contents[0]).toMatchObject({ mimeType: "application/json" });
    expect(JSON.parse((entity.contents[0] as { text: string }).text)).toEqual(expectedAgent.agent);
    const service = await client.readResource({ uri: "agent-ledger://entities/tempo-gateway-mpp" });
    expect(JSON.parse((service.contents[0] as { text: string }).text).id).toBe("tempo-gateway-mpp");
    const anEvent = expectedAgent.agent.recentEvents.items[0];
    const event = await client.readResource({ uri: `agent-ledger://events/${anEvent.id}` });
    expect(JSON.parse((event.contents[0] as { text: string }).text)).toEqual(await tool(client, "get_event", { id: anEvent.id }));
    const missing = await client.readResource({ uri: "agent-ledger://events/999999999" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(missing).toMatchObject({ code: -32002, message: "MCP error -32002: no ledger row with id 999999999", data: { code: "not_found", status: 404 } });
    const malformed = await client.readResource({ uri: "agent-ledger://events/abc" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(malformed).toMatchObject({ code: ErrorCode.InvalidParams, data: { code: "invalid_id", status: 400 } });
  });

  it("answers unknown ids and the API's refusals as tool errors with the API's code and status", async () => {
    // The status is the one the API answers the code with (REST), also when GraphQL carried the error in a 200.
    expect(await toolError(client, "get_service", { id: "demo-agent-alpha" })).toMatchObject({ code: "not_found", status: 404 }); // an agent, not a service
    expect(await toolError(client, "get_agent", { id: "no-such-agent" })).toMatchObject({ code: "not_found", status: 404 });
    expect(await toolError(client, "get_event", { id: "abc" })).toMatchObject({ code: "invalid_id", status: 400 });
    expect(await toolError(client, "get_event", { id: "999999999" })).toMatchObject({ code: "not_found", status: 404 });
    expect(await toolError(client, "get_event", { id: 999999999 })).toMatchObject({ code: "not_found", status: 404 });
    expect(await toolError(client, "get_provider", { key: "0x00000000000000000000000000000000000000ff" })).toMatchObject({ code: "not_found", status: 404 });
    expect(await toolError(client, "search", { q: "  a " })).toMatchObject({ code: "invalid_query", status: 400 });
    expect(await toolError(client, "list_recent_events", { entity_id: "demo-agent-alpha", cursor: "not-a-cursor" })).toMatchObject({
      code: "invalid_cursor",
      status: 400,
    });
    expect(await toolError(client, "list_recent_events", { cursor: "x" })).toMatchObject({ code: "invalid_cursor", status: 400 });
    expect(await toolError(client, "list_recent_events", { limit: 21 })).toMatchObject({ code: "invalid_limit", status: 400 });
    expect(await toolError(client, "list_events_since", { entity_id: "no-such-agent", after_id: 0 })).toMatchObject({ code: "not_found", status: 404 });
    expect(await toolError(client, "list_events_since", { entity_id: "demo-agent-alpha", after_id: "-1" })).toMatchObject({ code: "invalid_id", status: 400 });
  });

  it("refuses bad arguments with schema errors, never a crash", async () => {
    const bad: [string, Record<string, unknown>][] = [
      ["get_dashboard", { window: "1y" }],
      ["search", { q: 42 }],
      ["search", { q: "x" }],
      ["search", { q: "weather", limit: 1000 }],
      ["get_service", {}],
      ["get_event", { id: null }],
      ["pay", { to: "0x1234", amount: "1" }],
      ["pay", { to: randomAddress(), amount: 1.25 }],
      ["pay", { to: randomAddress() }],
      ["pay", { to: randomAddress(), amount: "1", idempotency_key: "has space" }],
      ["list_payments", { limit: 0 }],
      ["create_webhook", { callback_url: "https://example.com/hook" }],
      ["list_deliveries", { id: "whs_x", limit: "ten" }],
    ];
    for (const [name, args] of bad) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect((r.content as { text: string }[])[0]!.text, name).toMatch(/Input validation error/);
    }
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length); // still serving
  });
});

describe("without a paired session", () => {
  it.each(["http", "stdio"] as const)(
    "%s: the ledger tools work, the wallet and webhook tools are refused 401 unauthorized with a hint",
    async (transport) => {
      const client = transport === "http" ? await httpClient() : await stdioClient();
      expect((await tool(client, "get_dashboard", { window: "7d" })).txCount).toBeGreaterThan(0);
      const before = (await sql.query("SELECT count(*)::int AS n FROM wallet_payments")).rows[0].n;
      for (const [name, args] of [
        ["wallet_status", {}],
        ["pay", { to: randomAddress(), amount: "0.01" }],
        ["list_payments", {}],
        ["list_webhooks", {}],
        ["create_webhook", { callback_url: "http://127.0.0.1:9/hook", agent_id: "demo-agent-alpha" }],
        ["list_deliveries", { id: "whs_abcdefgh12" }],
      ] as const) {
        const e = await toolError(client, name, args);
        expect(e, name).toMatchObject({ code: "unauthorized", status: 401 });
        expect(e.hint, name).toMatch(transport === "http" ? /Authorization: Bearer/ : /agent-ledger pair/);
      }
      expect((await sql.query("SELECT count(*)::int AS n FROM wallet_payments")).rows[0].n).toBe(before);
    },
    60_000,
  );

  it("http: an unknown bearer token is refused the same way", async () => {
    const client = await httpClient("al_not_a_real_token_000000000000000000000000");
    expect(await toolError(client, "wallet_status")).toMatchObject({ code: "unauthorized", status: 401 });
  });
});

describe("pay (devnet)", () => {
  it("moves exactly the amount, never twice for one idempotency key (over both transports), and refuses past the caps", async () => {
    const http = await httpClient(bearer);
    const stdio = await stdioClient(bearer);
    const to = randomAddress();
    const payerBefore = await balance(managed);

    const paid = await tool(http, "pay", { to, amount: "1.25", memo: "inv-mcp-1", idempotency_key: "mcp-test-inv-1" });
    expect(paid).toMatchObject({
      status: "sent",
      idempotency_key: "mcp-test-inv-1",
      replayed: false,
      to,
      amount_wei: "1250000",
      amount: "1.25",
      memo: "inv-mcp-1",
      token: PATH_USD,
      spend_used_wei_after: "1250000",
      spend_cap_wei: "3000000",
      from: managed,
    });
    expect(paid.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(to)).toBe(1_250_000n);
    expect(payerBefore - (await balance(managed))).toBe(1_250_000n); // gas is sponsored

    // The same key again — a retried tool call, over HTTP and over stdio: the first outcome, no second transaction.
    const again = await tool(http, "pay", { to, amount: "1.25", memo: "inv-mcp-1", idempotency_key: "mcp-test-inv-1" });
    expect(again).toMatchObject({ status: "sent", replayed: true, tx_hash: paid.tx_hash, amount_wei: "1250000" });
    const viaStdio = await tool(stdio, "pay", { to, amount: "1.250000", memo: "inv-mcp-1", idempotency_key: "mcp-test-inv-1" });
    expect(viaStdio).toMatchObject({ status: "sent", replayed: true, tx_hash: paid.tx_hash });
    expect(await balance(to)).toBe(1_250_000n);
    expect(await paymentsOf(sessionId)).toEqual([{ status: "sent", amount: "1250000", tx_hash: paid.tx_hash }]);
    // the key with another amount is the API's refusal
    expect(await toolError(http, "pay", { to, amount: "1.26", memo: "inv-mcp-1", idempotency_key: "mcp-test-inv-1" })).toMatchObject({
      code: "idempotency_key_reused",
      status: 409,
    });

    // caps: 2 per payment, 3 in total
    expect(await toolError(http, "pay", { to, amount: "2.000001" })).toMatchObject({ code: "per_call_cap_exceeded", status: 403 });
    const second = await tool(stdio, "pay", { to, amount: "1.5" }); // no key given: one is made and returned
    expect(second).toMatchObject({ status: "sent", amount_wei: "1500000", spend_used_wei_after: "2750000", replayed: false });
    expect(second.idempotency_key).toMatch(/^mcp-[0-9a-f-]{36}$/);
    const refused = await toolError(http, "pay", { to, amount: "0.25001", idempotency_key: "mcp-test-over" });
    expect(refused).toMatchObject({ code: "spend_cap_exceeded", status: 403, idempotency_key: "mcp-test-over" });
    expect(await balance(to)).toBe(2_750_000n);
    expect(payerBefore - (await balance(managed))).toBe(2_750_000n);
    expect(await toolError(http, "pay", { to, amount: "0.0000001" })).toMatchObject({ code: "invalid_amount" });
    expect(await toolError(http, "pay", { to, amount: "0" })).toMatchObject({ code: "invalid_amount" });

    const status = await tool(stdio, "wallet_status");
    expect(status).toMatchObject({
      session_id: sessionId,
      status: "active",
      spend_used_wei: "2750000",
      spend_remaining_wei: "250000",
      amounts: { spend_remaining: "0.25", spend_cap: "3.00", per_call_cap: "2.00" },
    });
    const list = await tool(http, "list_payments", { limit: 10 });
    expect(list.session_id).toBe(sessionId);
    expect(list.items.map((p: { status: string; amount: string; tx_hash: string }) => [p.status, p.amount, p.tx_hash])).toEqual([
      ["sent", "1.50", second.tx_hash],
      ["sent", "1.25", paid.tx_hash],
    ]);
  }, 120_000);
});

describe("webhooks", () => {
  it("create, list, pause, resume, deliveries, delete through the tools, as the paired session's user", async () => {
    const client = await httpClient(bearer);
    const created = await tool(client, "create_webhook", {
      callback_url: "http://127.0.0.1:9/hook",
      agent_id: "demo-agent-alpha",
      label: "from mcp",
      min_amount: "1.5",
    });
    expect(created).toMatchObject({
      status: "pending_verify",
      callback_url: "http://127.0.0.1:9/hook",
      filters: { agent_id: "demo-agent-alpha", min_amount_wei: "1500000" },
    });
    expect(created.signing_secret).toBeTruthy();
    const listed = await tool(client, "list_webhooks");
    expect(listed.items.map((w: { id: string }) => w.id)).toContain(created.id);
    expect(await toolError(client, "pause_webhook", { id: created.id })).toMatchObject({ status: 409 }); // not active yet: the API's state rule
    expect(await toolError(client, "test_webhook", { id: created.id })).toMatchObject({ code: "invalid_state", status: 409 });
    expect(await toolError(client, "verify_webhook", { id: created.id, verify_token: "wrong" })).toMatchObject({ code: "invalid_verify_token", status: 400 });
    expect(await tool(client, "verify_webhook", { id: created.id, verify_token: created.verify_token })).toMatchObject({ ok: true, status: "active" });
    const shown = await tool(client, "get_webhook", { id: created.id });
    expect(shown).toMatchObject({ id: created.id, status: "active", label: "from mcp", deliveries: { total: 1 } });
    expect(shown).toEqual((await call(t.url, "GET", `/api/webhooks/${created.id}`, { bearer })).body);
    const rotated = await tool(client, "rotate_webhook_secret", { id: created.id });
    expect(rotated.signing_secret).toMatch(/\S{20,}/);
    expect(rotated.signing_secret).not.toBe(created.signing_secret);
    expect(await tool(client, "pause_webhook", { id: created.id })).toMatchObject({ id: created.id, status: "paused" });
    expect(await tool(client, "resume_webhook", { id: created.id })).toMatchObject({ id: created.id, status: "active" });
    const tested = await tool(client, "test_webhook", { id: created.id });
    expect(tested).toMatchObject({ ok: true, delivery: { type: "test" } });
    const redelivered = await tool(client, "redeliver_webhook_delivery", { id: created.id, delivery_id: tested.delivery_id });
    expect(redelivered).toMatchObject({ ok: true, delivery: { id: tested.delivery_id } });
    expect(await toolError(client, "redeliver_webhook_delivery", { id: created.id, delivery_id: "whd_nosuchdelivery" })).toMatchObject({ status: 404 });
    const recovered = await tool(client, "recover_webhook", { id: created.id, since: new Date(Date.now() - 3600_000).toISOString() });
    expect(recovered).toMatchObject({ ok: true, id: created.id });
    expect(recovered.matched_events).toBeGreaterThanOrEqual(recovered.deliveries_created);
    expect(await toolError(client, "recover_webhook", { id: created.id, since: "2020-01-01T00:00:00Z" })).toMatchObject({ code: "since_too_old", status: 400 });
    const deliveries = await tool(client, "list_deliveries", { id: created.id, limit: 50 });
    expect(deliveries.items.map((d: { type: string }) => d.type)).toEqual(expect.arrayContaining(["verify", "test"]));
    expect(await tool(client, "delete_webhook", { id: created.id })).toMatchObject({ id: created.id, status: "deleted" });
    expect((await tool(client, "list_webhooks")).items.map((w: { id: string }) => w.id)).not.toContain(created.id);
    expect(await toolError(client, "delete_webhook", { id: created.id })).toMatchObject({ code: "not_found", status: 404 });
    expect(await toolError(client, "create_webhook", { callback_url: "http://127.0.0.1:9/hook", agent_id: "no-such-agent" })).toMatchObject({
      code: "unknown_agent",
      status: 400,
    });
  }, 60_000);
});

describe("/mcp over HTTP", () => {
  it("answers misuse with the API's JSON error body", async () => {
    const get = await fetch(`${t.url}/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    expect((await get.json()).error.code).toBe("method_not_allowed");
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const noAccept = await fetch(`${t.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(init) });
    expect(noAccept.status).toBe(406);
    expect((await noAccept.json()).error.code).toBe("not_acceptable");
    const accept = "application/json, text/event-stream";
    const text = await fetch(`${t.url}/mcp`, { method: "POST", headers: { "content-type": "text/plain", accept }, body: "hi" });
    expect([text.status, (await text.json()).error.code]).toEqual([415, "unsupported_media_type"]);
    const huge = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify({ x: "a".repeat(300_000) }),
    });
    expect([huge.status, (await huge.json()).error.code]).toEqual([413, "payload_too_large"]);
    const ok = await fetch(`${t.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept }, body: JSON.stringify(init) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("mcp-session-id")).toBeNull(); // stateless
    expect((await ok.json()).result.serverInfo.name).toBe("agent-ledger");
  });

  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  };
  /** A raw request to /mcp over node:http, so that Host can be anything (fetch sets it from the URL). */
  function rawMcp(method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const url = new URL(`${t.url}/mcp`);
    const all: Record<string, string> = { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers };
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: "/mcp", method, headers: all }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : null }));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  it("answers a body that is not JSON -32700 and one that is not a JSON-RPC message -32600, as JSON-RPC says", async () => {
    for (const body of ["{", "[1,", JSON.stringify(JSON.parse("[".repeat(70) + "]".repeat(70)))]) {
      const r = await rawMcp("POST", {}, body);
      expect(r.status, body).toBe(400);
      expect(r.json, body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
      expect(r.json.error.message).toMatch(/^Parse error/);
    }
    for (const body of ["{}", "[]", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "ping" }), "42"]) {
      const r = await rawMcp("POST", {}, body);
      expect([r.status, r.json.error.code], body).toEqual([400, -32600]);
    }
    // params that do not fit: -32602 with a short message, not -32603 with the schema's dump
    const noName = await rawMcp("POST", {}, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { arguments: {} } }));
    expect(noName.status).toBe(200);
    expect(noName.json).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602 } });
    expect(noName.json.error.message.length).toBeLessThan(300);
    const badInit = await rawMcp("POST", {}, JSON.stringify({ jsonrpc: "2.0", id: 8, method: "initialize", params: { capabilities: {} } }));
    expect(badInit.json).toMatchObject({ id: 8, error: { code: -32602 } });
    const ok = await rawMcp("POST", {}, JSON.stringify(init));
    expect(InitializeResultSchema.parse(ok.json.result).capabilities).toEqual({ tools: {}, resources: {} });
  });

  it("validates Origin and Host against DNS rebinding: 403 cross_site_request for a foreign page or host name", async () => {
    const { host } = new URL(t.url);
    const body = JSON.stringify(init);
    const evil = await rawMcp("POST", { origin: "https://evil.example" }, body);
    expect([evil.status, evil.json.error.code]).toEqual([403, "cross_site_request"]);
    expect(evil.json.error.message).toMatch(/evil\.example/);
    const rebound = await rawMcp("POST", { host: `evil.example:${new URL(t.url).port}` }, body);
    expect([rebound.status, rebound.json.error.code]).toEqual([403, "cross_site_request"]);
    const reboundSameOrigin = await rawMcp("POST", { host: "evil.example", origin: "http://evil.example" }, body);
    expect(reboundSameOrigin.status).toBe(403);
    for (const origin of ["null", "file://", "chrome-extension://abc"]) expect((await rawMcp("POST", { origin }, body)).status, origin).toBe(403);
    const preflight = await rawMcp("OPTIONS", { origin: "https://evil.example", "access-control-request-method": "POST" });
    expect(preflight.status).toBe(403);
    expect((await rawMcp("GET", { host: "evil.example" })).status).toBe(403);

    // allowed: no Origin (a non-browser client), the API's own origin, a loopback page, the configured public origin
    for (const headers of [
      {},
      { origin: `http://${host}` },
      { origin: "http://localhost:6274" },
      { origin: "http://localhost:3000" },
      { host: "localhost" },
      { host: "[::1]:80" },
    ] as Record<string, string>[]) {
      const r = await rawMcp("POST", headers, body);
      expect(r.status, JSON.stringify(headers)).toBe(200);
      expect(r.json.result.serverInfo.name).toBe("agent-ledger");
      if (headers.origin) expect(r.headers["access-control-allow-origin"]).toBe(headers.origin);
    }
    const allowedPreflight = await rawMcp("OPTIONS", { origin: "http://localhost:6274", "access-control-request-method": "POST" });
    expect([allowedPreflight.status, allowedPreflight.headers["access-control-allow-origin"]]).toEqual([204, "http://localhost:6274"]);
  });
});
