import { createTestDatabase } from "@agent-ledger/db/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mppFingerprint } from "@agent-ledger/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_ROW_FIELDS, getJson, gql, schemaProblems } from "./support/http.ts";
import { seedV03Ledger, V03, type V03Ledger } from "./support/seedV03Ledger.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// Methodology v0.3's row fields served by every read surface, on a v0.3 ledger (support/seedV03Ledger.ts: the real
// matcher's rows of MPP charges and of one session channel, stored by the indexer's write path): REST rows and the event
// detail (snake_case, OpenAPI-valid), GraphQL (camelCase, the same values), the MCP get_event tool (the GraphQL answer).
// `client_label` comes from the registry's client_labels; a session row's detail carries its channel's life decoded
// from the escrow's raw logs. Real PostgreSQL, the real app.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ledger: V03Ledger;
let t: TestApp;
let sql: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = await seedV03Ledger(db.url);
  t = await startTestApp(db.url, { methodologyVersion: "v0.3" });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await t?.close();
  await db?.drop();
});

async function ok(path: string, template: string) {
  const res = await getJson(t.url, path);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  expect(schemaProblems(template, 200, res.body)).toEqual([]);
  return res.body;
}

/** The id of the row of `agentId` whose transaction is `txHash` (and log index, when given). */
async function rowId(agentId: string, txHash: string, logIndex = 0): Promise<number> {
  const { rows } = await sql.query("SELECT id::int FROM agent_events WHERE agent_id = $1 AND tx_hash = $2 AND log_index = $3", [agentId, txHash, logIndex]);
  expect(rows).toHaveLength(1);
  return rows[0].id;
}

/** The session object REST must serve for the seeded channel (snake_case, decimal strings, chain order). */
function expectedSessionJson() {
  const [open, topUp, settle1, settle2, close] = ledger.sessionTxs;
  const at = (s: { hash: string; ts: Date }, logIndex: number) => ({ tx_hash: s.hash, log_index: logIndex, ts: s.ts.toISOString() });
  return {
    channel_id: V03.CHANNEL,
    escrow_address: V03.ESCROW,
    escrow_label: "MPP session escrow (TempoStreamChannel)",
    payer: V03.AGENT,
    payee: V03.PAYEE,
    token_address: V03.USDC_E,
    deposit_wei: (V03.DEPOSIT + V03.TOP_UP).toString(),
    settled_wei: V03.CLOSE_AT.toString(),
    refunded_wei: V03.REFUND.toString(),
    opened: { ...at(open!, 1), token_address: V03.USDC_E, deposit_wei: V03.DEPOSIT.toString() },
    top_ups: [{ ...at(topUp!, 1), additional_deposit_wei: V03.TOP_UP.toString(), new_deposit_wei: (V03.DEPOSIT + V03.TOP_UP).toString() }],
    settlements: [
      { ...at(settle1!, 1), cumulative_amount_wei: V03.SETTLE_1.toString(), delta_paid_wei: V03.SETTLE_1.toString(), new_settled_wei: V03.SETTLE_1.toString() },
      {
        ...at(settle2!, 1),
        cumulative_amount_wei: V03.SETTLE_2.toString(),
        delta_paid_wei: (V03.SETTLE_2 - V03.SETTLE_1).toString(),
        new_settled_wei: V03.SETTLE_2.toString(),
      },
    ],
    closed: { ...at(close!, 2), settled_to_payee_wei: V03.CLOSE_AT.toString(), refunded_to_payer_wei: V03.REFUND.toString() },
  };
}

/** snake_case keys → camelCase, deeply (REST's shape → GraphQL's). */
function camel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(v)]));
}

describe("REST", () => {
  it("every row carries attribution, client_fingerprint, client_label and channel_id, as stored (the label from client_labels)", async () => {
    const body = await ok("/api/agents/v3-agent/events?limit=100", "/api/agents/{id}/events");
    const { rows: stored } = await sql.query(
      `SELECT a.id::int, a.attribution, a.client_fingerprint, a.channel_id, l.label AS client_label
       FROM agent_events a LEFT JOIN client_labels l ON l.fingerprint = a.client_fingerprint WHERE a.agent_id = 'v3-agent' ORDER BY a.id DESC`,
    );
    expect(body.items.length).toBe(stored.length);
    for (const e of body.items) expect(Object.keys(e)).toEqual(EVENT_ROW_FIELDS);
    expect(
      body.items.map((e: Record<string, unknown>) => ({
        id: e.id,
        attribution: e.attribution,
        client_fingerprint: e.client_fingerprint,
        channel_id: e.channel_id,
        client_label: e.client_label,
      })),
    ).toEqual(stored);
    // the seeded ledger covers each case: a labelled client, an unlabelled one, session rows (payouts and funding), no client
    const byTx = new Map(body.items.map((e: { tx_hash: string; kind: string }) => [`${e.tx_hash}:${e.kind}`, e]));
    const [falTx, duneTx] = [...new Set(ledger.logs.map((l) => l.txHash))];
    expect(byTx.get(`${falTx}:payment_sent`)).toMatchObject({
      attribution: "server_id_host",
      client_fingerprint: V03.CLIENT,
      client_label: V03.CLIENT_LABEL,
      channel_id: null,
      routed_to_label: "fal.ai",
    });
    expect(byTx.get(`${duneTx}:payment_sent`)).toMatchObject({
      attribution: "server_id_realm",
      client_fingerprint: V03.CLIENT_UNLABELLED,
      client_label: null,
      channel_id: null,
    });
    expect(byTx.get(`${ledger.sessionTxs[2]!.hash}:payment_sent`)).toMatchObject({
      attribution: "session_escrow",
      client_fingerprint: null,
      client_label: null,
      channel_id: V03.CHANNEL,
      routed_to_address: V03.PAYEE,
    });
    expect(byTx.get(`${ledger.sessionTxs[0]!.hash}:funding_sent`)).toMatchObject({ attribution: null, channel_id: V03.CHANNEL });
  });

  it("a session row's detail has its channel's life from the escrow's logs: opened, top-up, settlements, close", async () => {
    const expected = expectedSessionJson();
    // a payout (the first settlement), the deposit, the refund: every row of the channel names the same life
    for (const [agent, tx, logIndex] of [
      ["v3-agent", 2, 0],
      ["openrouter-mpp", 3, 0],
      ["mpp-session-escrow", 0, 0],
      ["v3-agent", 4, 1],
    ] as const) {
      const id = await rowId(agent, ledger.sessionTxs[tx]!.hash, logIndex);
      const body = await ok(`/api/events/${id}`, "/api/events/{id}");
      expect(Object.keys(body)).toEqual([...EVENT_ROW_FIELDS, "log_index", "related_events", "session"]);
      expect(body.channel_id).toBe(V03.CHANNEL);
      expect(body.session).toEqual(expected);
    }
    // its figures add up: what went in = what the payee got + what came back
    expect(BigInt(expected.deposit_wei)).toBe(BigInt(expected.settled_wei) + BigInt(expected.refunded_wei));
  });

  it("a charge row's detail has no session; its related rows carry the fields too", async () => {
    const falTx = ledger.logs[0]!.txHash;
    const body = await ok(`/api/events/${await rowId("v3-agent", falTx)}`, "/api/events/{id}");
    expect(body).toMatchObject({ attribution: "server_id_host", client_label: V03.CLIENT_LABEL, channel_id: null, session: null });
    expect(
      body.related_events.map((e: { agent_id: string; attribution: string; client_label: string }) => [e.agent_id, e.attribution, e.client_label]),
    ).toEqual([["fal-mpp", "server_id_host", V03.CLIENT_LABEL]]);
  });

  it("a client label loaded later is served at once (read at query time, not stored in the row)", async () => {
    await sql.query("INSERT INTO client_labels (fingerprint, label, source) VALUES ($1, 'Someone else', 'test')", [V03.CLIENT_UNLABELLED]);
    try {
      const duneTx = ledger.logs.find((l) => l.address === V03.PATH_USD && l.topics[2]?.endsWith(V03.DUNE.slice(2)))!.txHash;
      const body = await ok(`/api/events/${await rowId("dune-mpp", duneTx)}`, "/api/events/{id}");
      expect(body).toMatchObject({ client_fingerprint: V03.CLIENT_UNLABELLED, client_label: "Someone else" });
    } finally {
      await sql.query("DELETE FROM client_labels WHERE fingerprint = $1", [V03.CLIENT_UNLABELLED]);
    }
  });
});

describe("the session escrow's entity (registry v3, kind escrow)", () => {
  it("is listed neither as an agent nor as a service; its page and search hit are served, OpenAPI-valid", async () => {
    const agents = await ok("/api/agents", "/api/agents");
    const services = await ok("/api/services", "/api/services");
    expect(agents.map((e: { id: string }) => e.id)).toEqual(["v3-agent"]);
    expect(services.map((e: { id: string }) => e.id).sort()).toEqual(["dune-mpp", "fal-mpp", "openrouter-mpp", "tempo-gateway-mpp"]);
    expect(await ok("/api/agents/mpp-session-escrow", "/api/agents/{id}")).toMatchObject({ kind: "escrow", wallets: [V03.ESCROW] });
    const found = await ok("/api/search?q=session%20escrow", "/api/search");
    expect(found.entities.map((e: { id: string; kind: string }) => [e.id, e.kind])).toEqual([["mpp-session-escrow", "escrow"]]);
  });

  it("is not counted among the dashboard's active agents, though it has rows (deposits, refunds)", async () => {
    const { rows } = await sql.query("SELECT count(*)::int AS n FROM agent_events WHERE agent_id = 'mpp-session-escrow'");
    expect(rows[0].n).toBeGreaterThan(0);
    for (const w of ["all", "30d"]) {
      const dashboard = await ok(`/api/dashboard?w=${w}`, "/api/dashboard");
      expect(dashboard.agentsActive, w).toBe(1); // v3-agent only
    }
  });
});

describe("providers named by the directory (registry v3 server_ids)", () => {
  it("a charge's serverId group carries its service's name, in the provider read, the list and the dashboard", async () => {
    const fal = mppFingerprint(V03.FAL_HOST);
    expect(await ok(`/api/providers/${fal}`, "/api/providers/{key}")).toMatchObject({ key: fal, pattern: "fingerprint", label: "fal.ai" });
    const dashboard = await ok("/api/dashboard?w=all", "/api/dashboard");
    expect(dashboard.topProviders.find((p: { key: string }) => p.key === fal)).toMatchObject({ label: "fal.ai" });
    const list = await gql(t.url, `{ providers(first: 20) { items { key label } } }`);
    expect(list.body.data.providers.items.find((p: { key: string }) => p.key === fal)).toEqual({ key: fal, label: "fal.ai" });
  });
});

const STEP = "txHash logIndex ts";
const SESSION = `channelId escrowAddress escrowLabel payer payee tokenAddress depositWei settledWei refundedWei
  opened { ${STEP} tokenAddress depositWei } topUps { ${STEP} additionalDepositWei newDepositWei }
  settlements { ${STEP} cumulativeAmountWei deltaPaidWei newSettledWei } closed { ${STEP} settledToPayeeWei refundedToPayerWei }`;

describe("GraphQL", () => {
  it("Event has attribution, clientFingerprint, clientLabel, channelId and session: REST's values, camelCase", async () => {
    const ids = (await sql.query("SELECT id::int FROM agent_events ORDER BY id")).rows.map((r) => r.id as number);
    for (const id of ids) {
      const rest = (await getJson(t.url, `/api/events/${id}`)).body;
      const res = await gql(t.url, `query($id: ID!) { event(id: $id) { id attribution clientFingerprint clientLabel channelId session { ${SESSION} } } }`, {
        id: String(id),
      });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.event).toEqual({
        id: String(id),
        attribution: rest.attribution,
        clientFingerprint: rest.client_fingerprint,
        clientLabel: rest.client_label,
        channelId: rest.channel_id,
        session: camel(rest.session),
      });
    }
  });

  it("sessions of a whole page of rows are read in one statement", async () => {
    const before = t.queries();
    const res = await gql(t.url, `{ agent(id: "v3-agent") { recentEvents(first: 50) { items { id channelId session { channelId settledWei } } } } }`);
    expect(res.body.errors).toBeUndefined();
    const items = res.body.data.agent.recentEvents.items as { channelId: string | null; session: { channelId: string; settledWei: string } | null }[];
    expect(items.filter((e) => e.channelId).length).toBeGreaterThan(3);
    for (const e of items) expect(e.session).toEqual(e.channelId ? { channelId: V03.CHANNEL, settledWei: V03.CLOSE_AT.toString() } : null);
    // head, page, sessions: a constant number of statements, not one per row
    expect(t.queries() - before).toBeLessThanOrEqual(4);
  });
});

describe("MCP", () => {
  it("get_event answers the GraphQL event with the new fields and the session", async () => {
    const client = new Client({ name: "events-v03-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      const id = String(await rowId("openrouter-mpp", ledger.sessionTxs[4]!.hash));
      const r = await client.callTool({ name: "get_event", arguments: { id } });
      expect(r.isError).toBeFalsy();
      const out = r.structuredContent as Record<string, unknown>;
      const rest = (await getJson(t.url, `/api/events/${id}`)).body;
      expect(out).toMatchObject({
        attribution: "session_escrow",
        clientFingerprint: null,
        clientLabel: null,
        channelId: V03.CHANNEL,
        session: camel(rest.session),
      });
      expect(out.session).toEqual(camel(expectedSessionJson()));
    } finally {
      await client.close();
    }
  });
});
