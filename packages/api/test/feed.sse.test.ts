import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventSource, type SseCollector } from "./support/feedClients.ts";
import { startFeedLedger, until, type FeedLedger } from "./support/feedLedger.ts";
import { EVENT_ROW_FIELDS, getJson } from "./support/http.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// GET /api/feed against rows the real indexer writes from a real devnet: a real EventSource client, live delivery in id
// order with the exact snake_case rows of REST, resume with Last-Event-ID (header, query, and the client's own
// automatic reconnect) without a gap or a duplicate, filters, validation, heartbeats, and a clean end on stop.

const FEED = { enabled: true, heartbeatMs: 50, pollMs: 500, retryMs: 100 };

let ledger: FeedLedger;
let t: TestApp;
const open: SseCollector[] = [];

function sse(path = "/api/feed", lastEventId?: string): SseCollector {
  const c = openEventSource(t.url + path, lastEventId);
  open.push(c);
  return c;
}

/** Reads a streaming response's text until `done(text)` holds, then cancels it. */
async function readUntil(res: Response, done: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!done(text)) {
    const { value, done: end } = await reader.read();
    if (end) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

beforeAll(async () => {
  ledger = await startFeedLedger();
  await ledger.pay(3); // history before the app starts
  t = await startTestApp(ledger.db.url, { feed: FEED });
}, 120_000);

afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
  await ledger?.stop();
});

describe("GET /api/feed", () => {
  it("answers text/event-stream with retry, a ready event at the current position, and heartbeats", async () => {
    const res = await fetch(`${t.url}/api/feed`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const head = await ledger.maxId();
    const text = await readUntil(res, (s) => s.includes(": ping\n\n"));
    expect(text.startsWith(`retry: 100\n\nid: ${head}\nevent: ready\ndata: {"last_event_id":"${head}"}\n\n`)).toBe(true);
    expect(text).toMatch(/\n\n: ping\n\n/);
  });

  it("an EventSource receives the rows the indexer inserts, live, in id order, exactly as REST serves them", async () => {
    const c = sse();
    await until(() => c.ready.length === 1, "ready");
    const start = Number(c.ready[0]);
    expect(start).toBe(await ledger.maxId());

    await ledger.pay(3);
    await ledger.pay(2); // a second indexer run: a second batch and NOTIFY
    const expected = await ledger.ids(start);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    await until(() => c.rows.length >= expected.length, "all rows");
    expect(c.ids()).toEqual(expected);
    expect(c.rowEventIds).toEqual(expected.map(String));
    for (const row of c.rows) {
      expect(Object.keys(row)).toEqual(EVENT_ROW_FIELDS);
      const rest = await getJson(t.url, `/api/events/${row.id}`);
      expect(rest.status).toBe(200);
      expect(row).toEqual(Object.fromEntries(EVENT_ROW_FIELDS.map((k) => [k, rest.body[k]])));
    }
    c.close();
  });

  it("a reconnect with Last-Event-ID misses nothing and duplicates nothing", async () => {
    const first = sse();
    await until(() => first.ready.length === 1, "ready");
    const start = Number(first.ready[0]);
    await ledger.pay(2);
    const firstBatch = await ledger.ids(start);
    await until(() => first.rows.length >= firstBatch.length, "first rows");
    first.close();
    const last = first.rowEventIds.at(-1)!;

    await ledger.pay(2); // committed while nobody listens
    const second = sse("/api/feed", last);
    await until(() => second.ready.length === 1, "replay done");
    await ledger.pay(2); // and live again
    const all = await ledger.ids(start);
    await until(() => first.rows.length + second.rows.length >= all.length, "union");
    const union = [...first.ids(), ...second.ids()];
    expect(union).toEqual(all);
    expect(new Set(union).size).toBe(union.length);
    expect(Number(second.ready[0])).toBeGreaterThan(Number(last)); // the replayed rows came before `ready`
    second.close();

    // ?last_event_id= (for clients that cannot set headers) replays the same rows
    const byQuery = sse(`/api/feed?last_event_id=${start}`);
    await until(() => byQuery.rows.length >= all.length, "replay by query");
    expect(byQuery.ids()).toEqual(all);
    byQuery.close();
  });

  it("Last-Event-ID 0 replays the whole ledger in pages, then goes live", async () => {
    const app = await startTestApp(ledger.db.url, { feed: { ...FEED, pageSize: 7 } });
    try {
      const c = openEventSource(`${app.url}/api/feed`, "0");
      open.push(c);
      const history = await ledger.ids(0);
      await until(() => c.ready.length === 1, "ready");
      expect(c.ids()).toEqual(history);
      expect(c.ready[0]).toBe(String(history.at(-1)));
      await ledger.pay(1);
      const all = await ledger.ids(0);
      await until(() => c.rows.length >= all.length, "live after replay");
      expect(c.ids()).toEqual(all);
      c.close();
    } finally {
      await app.close();
    }
  });

  it("the EventSource's own reconnect resumes from its last id, even before its first row (the ready id)", async () => {
    const app = await startTestApp(ledger.db.url, { feed: FEED });
    try {
      const c = openEventSource(`${app.url}/api/feed`);
      open.push(c);
      await until(() => c.ready.length === 1, "ready");
      const start = Number(c.ready[0]);
      app.app.server.closeAllConnections(); // the connection drops before any row
      await ledger.pay(2); // rows while the client is reconnecting (retry: 100 ms)
      await until(() => c.opens >= 2, "reconnected");
      await ledger.pay(1);
      const all = await ledger.ids(start);
      await until(() => c.rows.length >= all.length, "all rows");
      expect(c.ids()).toEqual(all);
      expect(c.ready.length).toBeGreaterThanOrEqual(2);
      c.close();
    } finally {
      await app.close();
    }
  });

  it("filters by agent_id and min_amount_wei, live and in replays", async () => {
    const alpha = ledger.keys.agents[0]!.id;
    const byAgent = sse(`/api/feed?agent_id=${alpha}`);
    const byAmount = sse("/api/feed?min_amount_wei=1002");
    const both = sse(`/api/feed?agent_id=${alpha}&min_amount_wei=1003`);
    await until(() => byAgent.ready.length && byAmount.ready.length && both.ready.length, "ready");
    const start = Number(byAgent.ready[0]);
    await ledger.pay(6); // amounts 1000 … 1005, senders alpha, beta, gamma, alpha, beta, gamma

    const select = async (where: string, params: unknown[]) =>
      (await ledger.sql.query(`SELECT id::int FROM agent_events WHERE id > $1 AND ${where} ORDER BY id`, [start, ...params])).rows.map((r) => r.id as number);
    const agentIds = await select("agent_id = $2", [alpha]);
    const amountIds = await select("amount_wei >= 1002", []);
    const bothIds = await select("agent_id = $2 AND amount_wei >= 1003", [alpha]);
    expect(agentIds.length).toBeGreaterThan(0);
    expect(bothIds.length).toBeGreaterThan(0);
    expect(bothIds.length).toBeLessThan(agentIds.length);
    await until(
      () => byAgent.rows.length >= agentIds.length && byAmount.rows.length >= amountIds.length && both.rows.length >= bothIds.length,
      "filtered rows",
    );
    expect(byAgent.ids()).toEqual(agentIds);
    expect(byAmount.ids()).toEqual(amountIds);
    expect(both.ids()).toEqual(bothIds);
    expect(byAgent.rows.every((r) => r.agent_id === alpha)).toBe(true);

    const replay = sse(`/api/feed?agent_id=${alpha}&min_amount_wei=1003&last_event_id=${start}`);
    await until(() => replay.ready.length === 1, "filtered replay");
    expect(replay.ids()).toEqual(bothIds);
    for (const c of [byAgent, byAmount, both, replay]) c.close();
  });

  it("rejects bad input before streaming", async () => {
    const fails = async (path: string, status: number, code: string, headers: Record<string, string> = {}) => {
      const res = await getJson(t.url, path, { headers });
      expect(res.status, path).toBe(status);
      expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    };
    for (const bad of ["abc", "-1", "1.5", "01", "1e3", "9223372036854775808", " 1 2"]) {
      await fails("/api/feed", 400, "invalid_last_event_id", { "last-event-id": bad });
      await fails(`/api/feed?last_event_id=${encodeURIComponent(bad)}`, 400, "invalid_last_event_id");
    }
    for (const bad of ["abc", "-1", "1.5", "01", "1e3", "", String(2n ** 256n)])
      await fails(`/api/feed?min_amount_wei=${encodeURIComponent(bad)}`, 400, "invalid_amount");
    await fails("/api/feed?agent_id=nobody-here", 404, "not_found");
    await fails("/api/feed?agent_id=", 404, "not_found");
    const post = await getJson(t.url, "/api/feed", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe("method_not_allowed");
    const preflight = await fetch(`${t.url}/api/feed`, { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("last-event-id");
  });

  it("is 404 feed_disabled unless NEXT_PUBLIC_LIVE_FEED=1 (and so is /graphql/stream)", async () => {
    const off = await startTestApp(ledger.db.url);
    try {
      for (const path of ["/api/feed", "/api/feed?last_event_id=1", "/graphql/stream"]) {
        const res = await getJson(off.url, path);
        expect(res.status, path).toBe(404);
        expect(res.body).toEqual({ error: { code: "feed_disabled", message: expect.any(String) } });
      }
      expect(off.app.feed.hub).toBeNull();
      expect(off.app.feed.subscriberCount()).toBe(0);
    } finally {
      await off.close();
    }
  });

  it("ends every stream cleanly when the server stops", async () => {
    const app = await startTestApp(ledger.db.url, { feed: FEED });
    const res = await fetch(`${app.url}/api/feed`);
    const reader = res.body!.getReader();
    await reader.read(); // the stream is open
    await until(() => app.app.feed.subscriberCount("sse") === 1, "subscribed");
    await app.close();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read(); // a clean end: done, no "terminated" error
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).not.toContain("event: event");
    expect(app.app.feed.subscriberCount()).toBe(0);
  });
});
