import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFeedFrame } from "../src/feed/encodeFeedFrame.ts";
import { encodeFeedPage } from "../src/feed/encodeFeedPage.ts";
import { eventRowJson } from "../src/rest/serializers.ts";
import type { EventRecord } from "../src/services/types.ts";
import { openEventSource, type SseCollector } from "./support/feedClients.ts";
import { startFeedLedger, until, type FeedLedger } from "./support/feedLedger.ts";
import { EVENT_ROW_FIELDS, getJson } from "./support/http.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";

// The shared SSE frames of the live feed: a row is serialized once per process (encodeFeedFrame) and a hub page once
// (encodeFeedPage), and every unfiltered live subscriber gets the same bytes in one write. The frames must be exactly
// the per-row serialization (the spec's Event row, as REST serves it), and filtered subscribers on the same app must
// still get only their rows.

function record(id: bigint, over: Partial<EventRecord> = {}): EventRecord {
  return {
    id,
    ts: new Date("2026-11-22T05:59:58.000Z"),
    agentId: "agent-ä",
    agentLabel: 'Agent "Ä" — line\nbreak \u2028 sep',
    agentCategory: "agent",
    counterpartyAddress: "0x00000000000000000000000000000000000000aa",
    counterpartyLabel: "Service ☃",
    counterpartyCategory: null,
    kind: "payment_sent",
    amountWei: 115792089237316195423570985008687907853269984665640564039457584007913129639935n,
    tokenAddress: "0x20c0000000000000000000000000000000000000",
    txHash: `0x${"ab".repeat(32)}`,
    logIndex: 3,
    sourceBlock: 123n,
    methodologyVersion: "v0.1",
    routedToAddress: "",
    routedToLabel: "",
    routedFingerprint: null,
    explorerUrl: `https://explore.tempo.xyz/tx/0x${"ab".repeat(32)}`,
    attribution: "server_id_host",
    clientFingerprint: `0x${"c1".repeat(10)}`,
    clientLabel: "Client ☃",
    channelId: null,
    ...over,
  } as EventRecord;
}

/** The per-subscriber serialization the shared frames replace. */
const perRowText = (row: EventRecord) => `id: ${row.id}\nevent: event\ndata: ${JSON.stringify(eventRowJson(row))}\n\n`;

describe("encodeFeedFrame / encodeFeedPage", () => {
  it("a frame is the UTF-8 of the row's SSE text, one data line, built once per row", () => {
    const row = record(41n);
    const frame = encodeFeedFrame(row);
    expect(frame.equals(Buffer.from(perRowText(row), "utf8"))).toBe(true);
    const text = frame.toString("utf8");
    expect(text.split("\n").filter((l) => l.startsWith("data: "))).toHaveLength(1); // a newline in a label is escaped
    expect(text.split("\n")).toHaveLength(5); // id, event, data, blank, ""
    expect(JSON.parse(text.split("\n")[2]!.slice(6))).toEqual(eventRowJson(row));
    expect(encodeFeedFrame(row)).toBe(frame); // the same Buffer for every subscriber
  });

  it("a page is byte-identical to its rows' frames written one by one, built once per page", () => {
    const rows = [record(7n), record(8n, { agentId: "b", amountWei: 1n }), record(9n, { kind: "payment_received" })];
    const page = encodeFeedPage(rows);
    expect(page.equals(Buffer.concat(rows.map(encodeFeedFrame)))).toBe(true);
    expect(page.toString("utf8")).toBe(rows.map(perRowText).join(""));
    expect(encodeFeedPage(rows)).toBe(page);
    expect(encodeFeedPage([rows[1]!])).toBe(encodeFeedFrame(rows[1]!));
  });
});

/** A raw HTTP/1.1 client on a real socket: the response head and each HTTP chunk of the body, as received. */
interface RawStream {
  head(): string | null;
  /** The body's chunks (chunked transfer coding decoded), in order. */
  chunks(): string[];
  close(): void;
}

function rawStream(base: string, path: string): RawStream {
  const url = new URL(base);
  let received = Buffer.alloc(0);
  const socket = net.connect({ host: url.hostname, port: Number(url.port) }, () =>
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`),
  );
  socket.on("data", (b: Buffer) => (received = Buffer.concat([received, b])));
  socket.on("error", () => {});
  const parse = () => {
    const end = received.indexOf("\r\n\r\n");
    if (end < 0) return { head: null, chunks: [] as string[] };
    const chunks: Buffer[] = [];
    let at = end + 4;
    for (;;) {
      const eol = received.indexOf("\r\n", at);
      if (eol < 0) break;
      const size = parseInt(received.toString("latin1", at, eol), 16);
      if (!(size > 0) || eol + 2 + size + 2 > received.length) break;
      chunks.push(received.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    return { head: received.toString("latin1", 0, end), chunks: chunks.map((c) => c.toString("utf8")) };
  };
  return { head: () => parse().head, chunks: () => parse().chunks, close: () => socket.destroy() };
}

const FEED = { enabled: true, heartbeatMs: 60_000, pollMs: 60_000, retryMs: 100 };

describe("shared frames on a real stream", () => {
  let ledger: FeedLedger;
  let t: TestApp;
  const open: (SseCollector | RawStream)[] = [];

  beforeAll(async () => {
    ledger = await startFeedLedger();
    await ledger.pay(1);
    t = await startTestApp(ledger.db.url, { feed: FEED });
  }, 120_000);

  afterAll(async () => {
    for (const c of open) c.close();
    await t?.close();
    await ledger?.stop();
  });

  it("an unfiltered live subscriber gets each hub page as one chunk, byte for byte the rows as REST serves them; filtered subscribers only their rows", async () => {
    const raw = rawStream(t.url, "/api/feed");
    const alpha = ledger.keys.agents[0]!.id;
    const byAgent = openEventSource(`${t.url}/api/feed?agent_id=${alpha}`);
    const byAmount = openEventSource(`${t.url}/api/feed?min_amount_wei=1002`);
    open.push(raw, byAgent, byAmount);
    await until(() => raw.chunks().some((c) => c.includes("event: ready")) && byAgent.ready.length && byAmount.ready.length, "ready");
    expect(raw.head()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw.head()).toMatch(/\r\ntransfer-encoding: chunked/i);
    const start = Number(byAgent.ready[0]);

    await ledger.pay(6); // one indexer batch: one NOTIFY, one hub page of mixed agents and amounts
    const all = await ledger.ids(start);
    expect(all.length).toBeGreaterThanOrEqual(12);
    const liveChunks = () => raw.chunks().filter((c) => c.includes("event: event"));
    await until(() => liveChunks().join("").split("event: event").length - 1 >= all.length, "all rows on the raw stream");

    // Byte-identical to the per-row serialization of the REST rows, in id order, nothing else in between.
    const rest = await Promise.all(all.map(async (id) => (await getJson(t.url, `/api/events/${id}`)).body));
    const expected = rest
      .map((r) => `id: ${r.id}\nevent: event\ndata: ${JSON.stringify(Object.fromEntries(EVENT_ROW_FIELDS.map((k) => [k, r[k]])))}\n\n`)
      .join("");
    expect(liveChunks().join("")).toBe(expected);
    // …and written as shared pages: a chunk carries several rows (per-row writes would be one row per chunk).
    expect(Math.max(...liveChunks().map((c) => c.split("event: event").length - 1))).toBeGreaterThan(1);

    const select = async (where: string, params: unknown[]) =>
      (await ledger.sql.query(`SELECT id::int FROM agent_events WHERE id > $1 AND ${where} ORDER BY id`, [start, ...params])).rows.map((r) => r.id as number);
    const agentIds = await select("agent_id = $2", [alpha]);
    const amountIds = await select("amount_wei >= 1002", []);
    expect(agentIds.length).toBeGreaterThan(0);
    expect(agentIds.length).toBeLessThan(all.length);
    expect(amountIds.length).toBeLessThan(all.length);
    await until(() => byAgent.rows.length >= agentIds.length && byAmount.rows.length >= amountIds.length, "filtered rows");
    await new Promise((r) => setTimeout(r, 100)); // nothing more arrives
    expect(byAgent.ids()).toEqual(agentIds);
    expect(byAmount.ids()).toEqual(amountIds);
    expect(byAgent.rows).toEqual(rest.filter((r) => agentIds.includes(r.id)).map((r) => Object.fromEntries(EVENT_ROW_FIELDS.map((k) => [k, r[k]]))));
  });

  it("a subscriber resuming with Last-Event-ID while pages arrive gets every row once, in order", async () => {
    const before = await ledger.maxId();
    const resumed = openEventSource(`${t.url}/api/feed`, String(before - 5));
    open.push(resumed);
    const pay = ledger.pay(4); // pages arrive during (or right after) the replay
    await until(() => resumed.ready.length === 1, "replay done");
    await pay;
    const all = await ledger.ids(before - 5);
    await until(() => resumed.rows.length >= all.length, "all rows");
    await new Promise((r) => setTimeout(r, 100));
    expect(resumed.ids()).toEqual(all);
    expect(resumed.rowEventIds).toEqual(all.map(String));
  });
});
