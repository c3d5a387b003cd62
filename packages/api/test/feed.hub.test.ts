import { adminUrl } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openEventSource, subscribeGraphql, type GraphqlCollector, type SseCollector } from "./support/feedClients.ts";
import { startFeedLedger, until, type FeedLedger } from "./support/feedLedger.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// The fan-out hub: several API processes on one database each run their own LISTEN and deliver the same rows; a lost
// LISTEN connection is re-established with backoff and the hub catches up from its last id; a notification that never
// arrives is healed by the periodic poll; subscriber counts for metrics.

const FEED = { enabled: true, heartbeatMs: 50, pollMs: 60_000, retryMs: 100 };

let ledger: FeedLedger;
const apps: TestApp[] = [];
const clients: (SseCollector | GraphqlCollector)[] = [];

async function app(feed: Record<string, unknown> = {}): Promise<TestApp> {
  const a = await startTestApp(ledger.db.url, { feed: { ...FEED, ...feed } });
  apps.push(a);
  return a;
}

function sse(a: TestApp): SseCollector {
  const c = openEventSource(`${a.url}/api/feed`);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  ledger = await startFeedLedger();
  await ledger.pay(2);
}, 120_000);

afterEach(async () => {
  for (const c of clients.splice(0)) "dispose" in c ? c.dispose() : c.close();
  for (const a of apps.splice(0)) await a.close();
});

afterAll(async () => {
  await ledger?.stop();
});

describe("feed hub", () => {
  it("two API apps on one database both deliver the same rows to their own subscribers, and count them", async () => {
    const [a, b] = [await app(), await app()];
    const onA = sse(a);
    const onB = sse(b);
    const gqlOnB = subscribeGraphql(b.url, true, "subscription { ledgerEvents { id agentId amountWei } }");
    clients.push(gqlOnB);
    await until(() => onA.ready.length && onB.ready.length && b.app.feed.subscriberCount("graphql") === 1, "subscribed");
    expect(onA.ready[0]).toBe(onB.ready[0]);
    expect(a.app.feed.subscriberCount()).toBe(1);
    expect(b.app.feed.subscriberCount()).toBe(2);
    expect(b.app.feed.stats()!.subscribers).toEqual({ sse: 1, graphql: 1 });

    const start = Number(onA.ready[0]);
    await ledger.pay(3);
    const expected = await ledger.ids(start);
    await until(
      () => onA.rows.length >= expected.length && onB.rows.length >= expected.length && gqlOnB.events().length >= expected.length,
      "rows on both apps",
    );
    expect(onA.ids()).toEqual(expected);
    expect(onB.rows).toEqual(onA.rows);
    expect(gqlOnB.events().map((e) => Number(e.id))).toEqual(expected);
    expect(a.app.feed.stats()!.lastSeenId).toBe(String(expected.at(-1)));
    expect(b.app.feed.stats()!.lastSeenId).toBe(String(expected.at(-1)));

    onA.close();
    gqlOnB.dispose();
    await until(() => a.app.feed.subscriberCount() === 0 && b.app.feed.subscriberCount() === 1, "unsubscribed");
    onB.close();
    await until(() => b.app.feed.subscriberCount() === 0, "all unsubscribed");
  });

  it("re-establishes a dropped LISTEN connection with backoff and catches up on rows committed meanwhile", async () => {
    // While `blocked`, every new LISTEN connection goes to a closed port and fails: the hub retries with backoff.
    let blocked = false;
    let attempts = 0;
    const listenClient = () => {
      attempts++;
      return blocked
        ? new pg.Client({ host: "127.0.0.1", port: 1, user: "postgres", database: "none", connectionTimeoutMillis: 1_000 })
        : new pg.Client({ connectionString: ledger.db.url, application_name: "agent-ledger-api-test-feed" });
    };
    const a = await app({ reconnectMinMs: 20, reconnectMaxMs: 100, listenClient }); // no poll (60 s): only the reconnect can catch up
    const c = sse(a);
    await until(() => c.ready.length === 1 && a.app.feed.stats()!.listening, "listening");
    const start = Number(c.ready[0]);

    blocked = true;
    const { rowCount } = await ledger.sql.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'agent-ledger-api-test-feed' AND query LIKE 'LISTEN%'",
    );
    expect(rowCount).toBe(1);
    await until(() => !a.app.feed.stats()!.listening, "connection lost");
    await ledger.pay(2); // committed (and NOTIFYed) while the hub cannot listen
    await until(() => attempts >= 4, "reconnect attempts");
    expect(a.app.feed.stats()!.listening).toBe(false);
    expect(c.rows).toEqual([]);

    blocked = false;
    const expected = await ledger.ids(start);
    await until(() => c.rows.length >= expected.length, "caught up after reconnecting");
    expect(c.ids()).toEqual(expected);
    expect(a.app.feed.stats()).toMatchObject({ listening: true, reconnects: 1 });

    await ledger.pay(1); // and live again through the new connection
    const more = await ledger.ids(start);
    await until(() => c.rows.length >= more.length, "live after reconnect");
    expect(c.ids()).toEqual(more);
  });

  it("heals a notification that never arrives with the periodic poll (the NOTIFY is only a wake-up)", async () => {
    // LISTEN on another database: this hub never hears the indexer's NOTIFY, only its poll finds the rows.
    const deaf = await app({ pollMs: 100, listenClient: () => new pg.Client({ connectionString: adminUrl().toString(), application_name: "feed-test-deaf" }) });
    const c = sse(deaf);
    await until(() => c.ready.length === 1, "ready");
    const start = Number(c.ready[0]);
    await ledger.pay(2);
    const expected = await ledger.ids(start);
    await until(() => c.rows.length >= expected.length, "rows via the poll");
    expect(c.ids()).toEqual(expected);

    // a NOTIFY whose payload lies (a range that does not exist) only wakes hubs up: nothing bogus is sent
    const listening = await app();
    const d = sse(listening);
    await until(() => d.ready.length === 1, "ready");
    await ledger.sql.query(`SELECT pg_notify('agent_events', '{"first_id":"1","last_id":"999999","count":999999,"to_block":"1"}')`);
    await ledger.pay(1);
    const after = await ledger.ids(Number(d.ready[0]));
    await until(() => d.rows.length >= after.length, "rows after a bogus notification");
    expect(d.ids()).toEqual(after);
    c.close();
    d.close();
  });
});
