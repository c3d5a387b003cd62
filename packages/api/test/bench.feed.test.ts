import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSseResponse, describeMessageTypes, rowIdOfMessage } from "../bench/feedFrames.ts";
import { FeedBenchError, runFeedBench } from "../bench/feedBench.ts";
import { BENCH_METHODOLOGY_VERSION, buildBenchRegistry } from "../bench/seedBenchLedger.ts";
import { formatReadyEvent } from "../src/feed/createSseHandler.ts";
import { encodeFeedFrame } from "../src/feed/encodeFeedFrame.ts";
import { encodeFeedPage } from "../src/feed/encodeFeedPage.ts";
import { eventRowJson } from "../src/rest/serializers.ts";
import type { EventRecord } from "../src/services/types.ts";

// The live-feed part of `npm run bench:api` (bench/feedBench.ts) once measured nothing: it inserted v0.1 rows while the
// API process it started served the default methodology (v0.3), so no subscriber ever got a row, and it printed
// "0 of 220,000 deliveries" instead of failing. These tests hold the harness to what it measures: it recognizes the
// API's own frames, a tiny run end to end recognizes every inserted row in every stream, and a run that recognizes
// none fails loudly, saying why.

function record(id: bigint, over: Partial<EventRecord> = {}): EventRecord {
  return {
    id,
    ts: new Date("2026-11-22T05:59:58.000Z"),
    agentId: "agent-ä",
    agentLabel: "Agent Ä ☃ — line\nbreak",
    agentCategory: "agent",
    counterpartyAddress: "0x00000000000000000000000000000000000000aa",
    counterpartyLabel: "Service",
    counterpartyCategory: null,
    kind: "payment_sent",
    amountWei: 1_000_000n,
    tokenAddress: "0x20c0000000000000000000000000000000000000",
    txHash: `0x${"ab".repeat(32)}`,
    logIndex: 0,
    sourceBlock: 123n,
    methodologyVersion: "v0.1",
    routedToAddress: "",
    routedToLabel: "",
    routedFingerprint: null,
    explorerUrl: `https://explore.tempo.xyz/tx/0x${"ab".repeat(32)}`,
    attribution: null,
    clientFingerprint: null,
    clientLabel: null,
    channelId: null,
    ...over,
  } as EventRecord;
}

/** An SSE response as the API writes it (createSseHandler): chunked, `retry:`, `ready`, a row, a ping, a shared page. */
function feedResponse(rows: EventRecord[]): Buffer {
  const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n";
  const writes = [
    Buffer.from("retry: 2000\n\n"),
    Buffer.from(formatReadyEvent(40n)),
    encodeFeedFrame(rows[0]!),
    Buffer.from(": ping\n\n"),
    encodeFeedPage(rows.slice(1)),
  ];
  const chunked = writes.flatMap((w) => [Buffer.from(`${w.length.toString(16)}\r\n`), w, Buffer.from("\r\n")]);
  return Buffer.concat([Buffer.from(head), ...chunked]);
}

/** `bytes` as reads of `size` bytes, read i arriving at time i. */
function reads(bytes: Buffer, size: number) {
  const ends: number[] = [];
  for (let end = Math.min(size, bytes.length); ; end = Math.min(end + size, bytes.length)) {
    ends.push(end);
    if (end === bytes.length) break;
  }
  return { ends, ats: ends.map((_, i) => i) };
}

describe("feedFrames: the bench reads the API's own SSE frames", () => {
  const rows = [record(41n), record(42n, { agentId: "b", kind: "payment_received" }), record(43n, { amountWei: 7n })];
  const bytes = feedResponse(rows);

  it.each([1, 3, 7, 64, 100_000])("every row is recognized with the arrival of the read that completed it (reads of %i bytes)", (size) => {
    const { ends, ats } = reads(bytes, size);
    const messages = decodeSseResponse(bytes, ends, ats);
    expect(messages.map((m) => m.type)).toEqual(["ready", "event", "event", "event"]);
    expect(messages.map(rowIdOfMessage)).toEqual([null, "41", "42", "43"]); // `ready` carries a position, not a row
    rows.forEach((row, i) => expect(JSON.parse(messages[i + 1]!.data)).toEqual(eventRowJson(row))); // UTF-8 split across reads
    // A message arrives with the read holding its final blank line.
    const text = bytes.toString("latin1");
    for (const [i, marker] of [
      [1, '"id":41,'],
      [3, '"id":43,'],
    ] as const) {
      expect(text.indexOf(marker)).toBeGreaterThan(0);
      const complete = text.indexOf("\n\n", text.indexOf(marker)) + 2;
      expect(messages[i]!.at).toBe(ends.findIndex((end) => end >= complete));
    }
    expect(describeMessageTypes(messages)).toBe("ready 1, event 3");
  });

  it("a message still incomplete at the end is left out; a row without its `event: event` type or with another id is not a row", () => {
    const cut = bytes.subarray(0, bytes.length - 10);
    expect(decodeSseResponse(cut, [cut.length], [0]).map(rowIdOfMessage)).toEqual([null, "41", "42"]);
    const data = JSON.stringify(eventRowJson(record(5n)));
    expect(rowIdOfMessage({ type: "message", id: "5", data, at: 0 })).toBeNull();
    expect(rowIdOfMessage({ type: "event", id: "6", data, at: 0 })).toBeNull();
    expect(rowIdOfMessage({ type: "event", id: "5", data: "not json", at: 0 })).toBeNull();
    expect(rowIdOfMessage({ type: "event", id: "5", data, at: 0 })).toBe("5");
    expect(describeMessageTypes([])).toBe("no SSE message at all");
  });
});

describe("runFeedBench end to end (the API as its own process)", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const small = { agents: 10, clients: 3, batches: 2, txsPerBatch: 2, intervalMs: 50, warmupBatches: 1, log: () => {} };

  beforeAll(async () => {
    db = await createTestDatabase();
    const pool = createPgPool(db.url, { max: 1 });
    try {
      await loadRegistryIntoDb(pool, parseRegistry(buildBenchRegistry(small.agents).json), "bench");
    } finally {
      await pool.end();
    }
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("every inserted row reaches every subscriber and is recognized", async () => {
    const result = await runFeedBench({ ...small, databaseUrl: db.url, methodologyVersion: BENCH_METHODOLOGY_VERSION });
    if (!result.available) throw new Error(`feed not available: ${result.reason}`);
    expect(result.connected).toBe(small.clients);
    expect(result.rowsInserted).toBeGreaterThanOrEqual(small.batches * small.txsPerBatch * 2);
    expect(result.deliveries).toBe(result.expectedDeliveries);
    expect(result.fromInsert.p99).toBeGreaterThan(0);
  }, 90_000);

  it("an API serving another methodology than the inserted rows: the run fails, naming both versions, instead of reporting 0", async () => {
    const run = runFeedBench({ ...small, databaseUrl: db.url, methodologyVersion: BENCH_METHODOLOGY_VERSION, apiEnv: { METHODOLOGY_VERSION: "v0.3" } });
    await expect(run).rejects.toThrow(FeedBenchError);
    await expect(run).rejects.toThrow(
      new RegExp(`no inserted row was recognized.*methodology ${BENCH_METHODOLOGY_VERSION}.*received ready 3.*METHODOLOGY_VERSION=v0\\.3`),
    );
  }, 90_000);
});
