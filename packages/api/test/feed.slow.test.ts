import http, { type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventSource, type SseCollector } from "./support/feedClients.ts";
import { startFeedLedger, until, type FeedLedger } from "./support/feedLedger.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// One slow subscriber never blocks the others: a real HTTP client that stops reading fills its socket buffers (about
// 4 MB on loopback), then its bounded buffer (40 rows here), and is dropped — its connection closed — while an
// EventSource on the same app receives every row (the same for a stalled graphql-sse stream). The dropped client then resumes with Last-Event-ID and misses
// nothing. Entity labels are padded to 3,000 characters so that rows are ~4–7 kB and a few hundred real transfers
// are enough to fill the kernel's buffers.

const FEED = { enabled: true, heartbeatMs: 1_000, pollMs: 60_000, retryMs: 100, maxBufferedRows: 40, pageSize: 10 };

let ledger: FeedLedger;
let t: TestApp;
const clients: SseCollector[] = [];

beforeAll(async () => {
  ledger = await startFeedLedger({ labelPadding: 3_000 });
  await ledger.pay(1);
  t = await startTestApp(ledger.db.url, { feed: FEED });
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await t?.close();
  await ledger?.stop();
});

/** A request with Node's http client, paused as soon as the headers arrive (it never reads the body). */
function stalledClient(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? "GET", headers: init.headers }, (res) => {
      res.pause();
      resolve(res);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Resumes a paused response and returns everything it still delivers until its connection ends. */
function drain(res: IncomingMessage): Promise<{ text: string; aborted: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    let aborted = false;
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => (text += chunk));
    res.on("aborted", () => (aborted = true));
    res.on("error", () => (aborted = true));
    res.on("close", () => resolve({ text, aborted }));
    res.resume();
  });
}

/** Ids of the complete `event: event` messages in an SSE text. */
function eventIds(text: string): number[] {
  return text
    .split("\n\n")
    .slice(0, -1) // the last part is incomplete (or empty)
    .filter((block) => block.includes("\nevent: event\n"))
    .map((block) => Number(/^id: (\d+)$/m.exec(block)![1]));
}

describe("slow subscriber", () => {
  it("is dropped when its buffer overflows while a normal client keeps receiving everything, and resumes without a gap", async () => {
    const normal = openEventSource(`${t.url}/api/feed`);
    clients.push(normal);
    const slow = await stalledClient(`${t.url}/api/feed`);
    // and a stalled graphql-sse subscription (distinct-connection mode: the operation's own event stream)
    const slowGraphql = await stalledClient(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: "subscription { ledgerEvents { id agentLabel counterpartyLabel } }" }),
    });
    await until(() => normal.ready.length === 1 && t.app.feed.subscriberCount("sse") === 2 && t.app.feed.subscriberCount("graphql") === 1, "three subscribers");
    const start = Number(normal.ready[0]);

    await ledger.pay(450);
    const expected = await ledger.ids(start);
    const bytes = Number(
      (await ledger.sql.query("SELECT sum(length(row_to_json(a)::text))::bigint AS n FROM agent_events a WHERE id > $1", [start])).rows[0].n,
    );
    expect(bytes).toBeGreaterThan(5_000_000); // more than loopback socket buffers hold

    await until(() => normal.rows.length >= expected.length, "every row on the normal client", 60_000);
    expect(normal.ids()).toEqual(expected);
    await until(() => t.app.feed.stats()!.dropped.sse === 1 && t.app.feed.stats()!.dropped.graphql === 1, "the slow clients dropped");
    expect(t.app.feed.subscriberCount("sse")).toBe(1);
    expect(t.app.feed.subscriberCount("graphql")).toBe(0);

    // the stalled GraphQL stream got a prefix of the rows, in order, then its connection was closed
    const gql = await drain(slowGraphql);
    expect(gql.aborted).toBe(true);
    const gqlIds = [...gql.text.matchAll(/"ledgerEvents":\{"id":"(\d+)"/g)].map((m) => Number(m[1]));
    expect(gqlIds.length).toBeGreaterThan(0);
    expect(gqlIds.length).toBeLessThan(expected.length);
    expect(gqlIds).toEqual(expected.slice(0, gqlIds.length));

    // What the stalled client had been sent before the drop: a prefix of the rows, in order; then its connection ends.
    const { text, aborted } = await drain(slow);
    expect(aborted).toBe(true); // closed by the server mid-stream (no clean end)
    const got = eventIds(text);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(expected.length);
    expect(got).toEqual(expected.slice(0, got.length));

    // It reconnects with Last-Event-ID and misses nothing.
    const resumed = openEventSource(`${t.url}/api/feed`, String(got.at(-1)));
    clients.push(resumed);
    await until(() => resumed.ready.length === 1, "resumed", 30_000);
    expect([...got, ...resumed.ids()]).toEqual(expected);
  });
});
