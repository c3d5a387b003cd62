import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribeGraphql, type GraphqlCollector } from "./support/feedClients.ts";
import { startFeedLedger, until, type FeedLedger } from "./support/feedLedger.ts";
import { EVENT_ROW_FIELDS, getJson, gql } from "./support/http.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// The `ledgerEvents` subscription over graphql-sse at /graphql/stream, with graphql-sse's own client in both modes
// (distinct connections, and single connection with a PUT reservation + stream token), against rows the real indexer
// writes from a real devnet: the same rows as the SSE feed and REST, filters, resume with afterId, nested fields
// resolved per row, and errors.

const FEED = { enabled: true, heartbeatMs: 50, pollMs: 500, retryMs: 100 };
const MODES = [
  ["distinct connections", false],
  ["single connection", true],
] as const;

const EVENT_FIELDS = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei
  tokenAddress txHash logIndex sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl
  attribution clientFingerprint clientLabel channelId`;
const SUBSCRIPTION = `subscription Feed($agentId: String, $minAmountWei: Uint256, $afterId: ID) {
  ledgerEvents(agentId: $agentId, minAmountWei: $minAmountWei, afterId: $afterId) { ${EVENT_FIELDS} }
}`;

let ledger: FeedLedger;
let t: TestApp;
const open: GraphqlCollector[] = [];

function subscribe(single: boolean, variables: Record<string, unknown> = {}, query = SUBSCRIPTION): GraphqlCollector {
  const c = subscribeGraphql(t.url, single, query, variables);
  open.push(c);
  return c;
}

const ids = (c: GraphqlCollector) => c.events().map((e) => Number(e.id));

/** The REST row of `id` in GraphQL's camelCase shape (logIndex from REST's detail). */
async function restAsGraphql(id: number) {
  const { body } = await getJson(t.url, `/api/events/${id}`);
  const camel = Object.fromEntries(EVENT_ROW_FIELDS.map((k) => [k.replace(/_(\w)/g, (_m, ch: string) => ch.toUpperCase()), body[k]]));
  return { ...camel, id: String(body.id), logIndex: body.log_index };
}

/** Waits until the hub has `n` GraphQL subscribers (the subscription is registered before rows are written). */
const subscribed = (n: number) => until(() => t.app.feed.subscriberCount("graphql") === n, `${n} graphql subscribers`);

beforeAll(async () => {
  ledger = await startFeedLedger();
  await ledger.pay(3);
  t = await startTestApp(ledger.db.url, { feed: FEED });
}, 120_000);

afterAll(async () => {
  for (const c of open) c.dispose();
  await t?.close();
  await ledger?.stop();
});

describe("subscription ledgerEvents over graphql-sse", () => {
  it("both modes receive the rows the indexer inserts, in id order, with the same values as REST", async () => {
    const distinct = subscribe(false);
    const single = subscribe(true);
    await subscribed(2);
    const start = await ledger.maxId();
    await ledger.pay(3);
    await ledger.pay(2);
    const expected = await ledger.ids(start);
    await until(() => ids(distinct).length >= expected.length && ids(single).length >= expected.length, "rows in both modes");
    expect(ids(distinct)).toEqual(expected);
    expect(ids(single)).toEqual(expected);
    expect(single.events()).toEqual(distinct.events());
    for (const e of distinct.events()) expect(e).toEqual(await restAsGraphql(Number(e.id)));
    expect(distinct.errors).toEqual([]);
    expect(single.errors).toEqual([]);
    distinct.dispose();
    single.dispose();
    await subscribed(0); // disposing ends the server-side subscriptions
  });

  it.each(MODES)("filters by agentId and minAmountWei (%s)", async (_mode, single) => {
    const alpha = ledger.keys.agents[1]!.id;
    const byAgent = subscribe(single, { agentId: alpha });
    const both = subscribe(single, { agentId: alpha, minAmountWei: "1003" });
    const byAmount = subscribe(single, { minAmountWei: "1004" });
    await subscribed(3);
    const start = await ledger.maxId();
    await ledger.pay(6);
    const select = async (where: string, params: unknown[]) =>
      (await ledger.sql.query(`SELECT id::int FROM agent_events WHERE id > $1 AND ${where} ORDER BY id`, [start, ...params])).rows.map((r) => r.id as number);
    const agentIds = await select("agent_id = $2", [alpha]);
    const bothIds = await select("agent_id = $2 AND amount_wei >= 1003", [alpha]);
    const amountIds = await select("amount_wei >= 1004", []);
    expect(bothIds.length).toBeGreaterThan(0);
    expect(bothIds.length).toBeLessThan(agentIds.length);
    await until(
      () => ids(byAgent).length >= agentIds.length && ids(both).length >= bothIds.length && ids(byAmount).length >= amountIds.length,
      "filtered rows",
    );
    expect(ids(byAgent)).toEqual(agentIds);
    expect(ids(both)).toEqual(bothIds);
    expect(ids(byAmount)).toEqual(amountIds);
    for (const c of [byAgent, both, byAmount]) c.dispose();
    await subscribed(0);
  });

  it.each(MODES)("afterId replays the rows after it, then continues live without a gap or a duplicate (%s)", async (_mode, single) => {
    const history = await ledger.ids(0);
    const after = history[Math.floor(history.length / 2)]!;
    const c = subscribe(single, { afterId: String(after) });
    await until(() => ids(c).length >= history.filter((id) => id > after).length, "replayed rows");
    await ledger.pay(2);
    const expected = await ledger.ids(after);
    await until(() => ids(c).length >= expected.length, "live rows");
    expect(ids(c)).toEqual(expected);
    c.dispose();
    await subscribed(0);
  });

  it("resolves nested fields for every row with fresh loaders (entity, relatedEvents)", async () => {
    const c = subscribe(
      true,
      { afterId: "0" },
      `subscription($afterId: ID) { ledgerEvents(afterId: $afterId) { id txHash agentId entity { id label } relatedEvents { id agentId } } }`,
    );
    const all = await ledger.ids(0);
    await until(() => ids(c).length >= all.length, "all rows");
    const { rows } = await ledger.sql.query("SELECT id::int, tx_hash FROM agent_events ORDER BY id");
    const byTx = new Map<string, number[]>();
    for (const r of rows) byTx.set(r.tx_hash, [...(byTx.get(r.tx_hash) ?? []), r.id]);
    for (const e of c.events()) {
      expect(e.entity.id).toBe(e.agentId);
      expect(e.relatedEvents.map((r: { id: string }) => Number(r.id)).sort((a: number, b: number) => a - b)).toEqual(
        byTx.get(e.txHash)!.filter((id) => id !== Number(e.id)),
      );
    }
    c.dispose();
    await subscribed(0);
  });

  it.each(MODES)("reports bad arguments as GraphQL errors with codes (%s)", async (_mode, single) => {
    const unknown = subscribe(single, { agentId: "nobody-here" });
    const badId = subscribe(single, { afterId: "12abc" });
    const badAmount = subscribe(single, { minAmountWei: "-5" });
    await until(() => unknown.results.length && badId.results.length && badAmount.results.length, "errors");
    expect(unknown.results[0].errors[0].extensions.code).toBe("not_found");
    expect(badId.results[0].errors[0].extensions.code).toBe("invalid_id");
    expect(badAmount.results[0].errors[0].extensions.code).toBe("invalid_uint256");
    for (const c of [unknown, badId, badAmount]) c.dispose();
  });

  it("serves only subscriptions, with the /graphql limits and no field suggestions", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      getJson(t.url, "/graphql/stream", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
    const query = await post({ query: "{ dashboard { txCount } }" });
    expect(query.status).toBe(400);
    expect(query.body.errors[0].extensions.code).toBe("subscription_only");
    const deep = await post({
      query: `subscription { ledgerEvents { entity { recentEvents { items { entity { recentEvents { items { entity { recentEvents { items { id } } } } } } } } } } }`,
    });
    expect(deep.status).toBe(200); // validation errors of a stream request arrive as a stream event
    expect(String(deep.body)).toMatch(/depth/i);
    const typo = await post({ query: "subscription { ledgerEvents { txHsh } }" });
    expect(String(typo.body)).toContain("Cannot query field");
    expect(String(typo.body)).not.toContain("Did you mean");
    // over plain /graphql the subscription field points to the stream endpoint
    const viaYoga = await gql(t.url, "subscription { ledgerEvents { id } }");
    expect(viaYoga.body.errors[0].extensions.code).toBe("use_graphql_stream");
    const preflight = await fetch(`${t.url}/graphql/stream`, { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("x-graphql-event-stream-token");
  });
});
