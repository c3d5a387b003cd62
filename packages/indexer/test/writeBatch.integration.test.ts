import type { EventDraft, RawLog } from "@agent-ledger/core";
import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BULK_MIN_LOGS, CheckpointConflictError, prepareBatch, writeBatch } from "../src/store/writeBatch.ts";
import { compareRollups } from "./rollups.ts";

// The batch write against real PostgreSQL, both ways: COPY into raw_logs and agent_events (with the idempotent fallback
// when logs or rows are already stored) and rollups from Node; and the small-batch statements from parameter arrays with
// rollups in SQL. Same rows, same rollups (= brute force), same guarantees.

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const AGENT = "0x00000000000000000000000000000000000000a1";
const SHOP = "0x00000000000000000000000000000000000000b2";

function log(block: number, logIndex: number): RawLog {
  return {
    blockNumber: BigInt(block),
    blockHash: hex(0xb0000 + block, 32)
      .toUpperCase()
      .replace("0X", "0x"),
    blockTimestamp: 1_767_225_600 + block * 3600,
    txHash: hex(0x70000 + block * 100 + logIndex, 32),
    txIndex: 0,
    logIndex,
    address: "0x20C0000000000000000000000000000000000000",
    topics: ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", hex(0xa1, 32), hex(0xb2, 32)],
    data: hex(1_000_000 + block, 32),
  };
}

function row(l: RawLog, kind: "payment_sent" | "payment_received", label: string): EventDraft {
  return {
    ts: new Date(l.blockTimestamp * 1000),
    agentId: kind === "payment_sent" ? "agent-a" : "shop-mpp",
    agentLabel: label,
    agentCategory: "cat\\egory",
    counterpartyAddress: kind === "payment_sent" ? SHOP : AGENT,
    counterpartyLabel: kind === "payment_sent" ? "" : "tab\there",
    counterpartyCategory: null,
    kind,
    amountWei: 123456789012345678901234567890n + BigInt(l.logIndex),
    tokenAddress: "0x20c0000000000000000000000000000000000000",
    txHash: l.txHash,
    logIndex: l.logIndex,
    sourceBlock: l.blockNumber,
    methodologyVersion: "v0.1",
    routedToAddress: "",
    routedToLabel: "",
    routedFingerprint: l.logIndex === 1 ? "0a0b0c0d0e0f10111213" : null,
    explorerUrl: `https://explore.test/tx/${l.txHash}`,
    // methodology v0.3 fields: set on some rows (one of each attribution over the batch), null on others (v0.1/v0.2 rows)
    ...v03(l),
  };
}

/** The v0.3 fields of a row of `l`: log index 0 a charge (a client, no channel), 1 a session payout (a channel, no client), else none. */
function v03(l: RawLog): Pick<EventDraft, "attribution" | "clientFingerprint" | "channelId"> {
  const n = Number(l.blockNumber);
  if (l.logIndex === 0) return { attribution: n % 2 ? "server_id_host" : "server_id_realm", clientFingerprint: hex(0xc1 + n, 10), channelId: null };
  if (l.logIndex === 1) return { attribution: "session_escrow", clientFingerprint: null, channelId: hex(0xcafe00 + n, 32) };
  return { attribution: null, clientFingerprint: null, channelId: null };
}

const TRICKY = 'Multi\nline, "quoted" {label} \\N back\\slash\r';

describe.each([
  { path: "COPY (large batches)", bulk: true },
  { path: "parameter arrays (small batches)", bulk: false },
])("writeBatch, $path", ({ bulk }) => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  const base = { streamId: "test", chainId: 1, startBlock: 1n };

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it("stores raw logs and rows exactly (labels with tabs, newlines, quotes, backslashes), in the matcher's order", async () => {
    const paid = [log(1, 0), log(1, 1), log(2, 0), log(2, 2)];
    // A malformed field from the node (tab, newline, backslash) is stored as sent and does not shift its row.
    const logs = [...paid.slice(0, 3), { ...log(2, 1), data: "0xab\tcd\\ef\n" }, paid[3]!]; // chain order
    const rows = paid.flatMap((l) => [row(l, "payment_sent", TRICKY), row(l, "payment_received", "Shop")]);
    const result = await writeBatch(client, { ...base, previousBlock: 0n, toBlock: 2n, toBlockHash: null, prepared: prepareBatch(logs, rows, { bulk }) });
    expect(result.rawLogsInserted).toBe(5);
    expect(result.eventsInserted).toBe(8);

    const { rows: raw } = await client.query(
      `SELECT block_number::text, block_hash, extract(epoch FROM block_timestamp)::int AS ts, tx_hash, tx_index, log_index, address, topic0, topic1, topic2, topic3, data
       FROM raw_logs ORDER BY block_number, log_index`,
    );
    expect(raw).toEqual(
      logs.map((l) => ({
        block_number: l.blockNumber.toString(),
        block_hash: l.blockHash.toLowerCase(),
        ts: l.blockTimestamp,
        tx_hash: l.txHash,
        tx_index: l.txIndex,
        log_index: l.logIndex,
        address: l.address.toLowerCase(),
        topic0: l.topics[0],
        topic1: l.topics[1],
        topic2: l.topics[2],
        topic3: null,
        data: l.data,
      })),
    );

    const { rows: stored } = await client.query(
      `SELECT id::text, ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, counterparty_category, kind, amount_wei::text,
              token_address, tx_hash, log_index, source_block::text, methodology_version, routed_to_address, routed_to_label, routed_fingerprint, explorer_url,
              attribution, client_fingerprint, channel_id
       FROM agent_events ORDER BY id`,
    );
    expect(stored.map((s) => BigInt(s.id))).toEqual(Array.from({ length: 8 }, (_, i) => result.firstEventId! + BigInt(i)));
    expect(stored.map(({ id: _id, ...s }) => s)).toEqual(
      rows.map((r) => ({
        ts: r.ts,
        agent_id: r.agentId,
        agent_label: r.agentLabel,
        agent_category: r.agentCategory,
        counterparty_address: r.counterpartyAddress,
        counterparty_label: r.counterpartyLabel,
        counterparty_category: r.counterpartyCategory,
        kind: r.kind,
        amount_wei: r.amountWei.toString(),
        token_address: r.tokenAddress,
        tx_hash: r.txHash,
        log_index: r.logIndex,
        source_block: r.sourceBlock.toString(),
        methodology_version: r.methodologyVersion,
        routed_to_address: r.routedToAddress,
        routed_to_label: r.routedToLabel,
        routed_fingerprint: r.routedFingerprint,
        explorer_url: r.explorerUrl,
        attribution: r.attribution,
        client_fingerprint: r.clientFingerprint,
        channel_id: r.channelId,
      })),
    );
    // every kind of v0.3 value went through (and the NULLs of older rows stayed NULL, not "" or "\\N")
    expect(new Set(stored.map((s) => s.attribution))).toEqual(new Set(["server_id_host", "server_id_realm", "session_escrow", null]));
    expect(stored.filter((s) => s.channel_id !== null && s.client_fingerprint !== null)).toEqual([]);
    for (const [, pair] of Object.entries(await compareRollups(db.url))) expect(pair.stored).toEqual(pair.brute);
  });

  it("a range written again (checkpoint moved back) stores nothing twice and counts nothing twice", async () => {
    // Block 2 is already stored; block 3 is new. COPY hits the key, the savepoint is undone, the idempotent insert runs
    // (and the rows' rollups come from SQL over exactly the inserted rows).
    await client.query("UPDATE indexer_checkpoints SET last_block = 1 WHERE id = 'test'");
    const logs = [log(2, 0), log(3, 0), log(3, 1)];
    const rows = logs.flatMap((l) => [row(l, "payment_sent", "Agent A"), row(l, "payment_received", "Shop")]);
    const result = await writeBatch(client, { ...base, previousBlock: 1n, toBlock: 3n, toBlockHash: null, prepared: prepareBatch(logs, rows, { bulk }) });
    expect(result.rawLogsInserted).toBe(2);
    expect(result.eventsInserted).toBe(4);
    const counts = (
      await client.query(
        "SELECT (SELECT count(*) FROM raw_logs)::int AS raw, (SELECT count(*) FROM agent_events)::int AS ev, (SELECT last_block::int FROM indexer_checkpoints) AS cp",
      )
    ).rows[0];
    expect(counts).toEqual({ raw: 7, ev: 12, cp: 3 });
    for (const [, pair] of Object.entries(await compareRollups(db.url))) expect(pair.stored).toEqual(pair.brute);
  });

  it("a checkpoint conflict writes nothing, and the same connection writes the next batch", async () => {
    const logs = [log(4, 0)];
    const rows = [row(logs[0]!, "payment_sent", "Agent A")];
    await expect(
      writeBatch(client, { ...base, previousBlock: 2n, toBlock: 4n, toBlockHash: null, prepared: prepareBatch(logs, rows, { bulk }) }),
    ).rejects.toBeInstanceOf(CheckpointConflictError);
    expect((await client.query("SELECT count(*)::int AS n FROM raw_logs WHERE block_number = 4")).rows[0].n).toBe(0);
    expect((await client.query("SELECT count(*)::int AS n FROM agent_events WHERE source_block = 4")).rows[0].n).toBe(0);
    const ok = await writeBatch(client, { ...base, previousBlock: 3n, toBlock: 4n, toBlockHash: null, prepared: prepareBatch(logs, rows, { bulk }) });
    expect(ok).toMatchObject({ rawLogsInserted: 1, eventsInserted: 1 });
    for (const [, pair] of Object.entries(await compareRollups(db.url))) expect(pair.stored).toEqual(pair.brute);
  });

  it("ids another session takes in the middle of a batch leave gaps; first and last ids still name exactly the batch's rows", async () => {
    // Stand-in for a concurrent nextval: a trigger takes an id after each row of log index 1 (rows in the middle).
    await client.query(`CREATE FUNCTION take_id() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.log_index = 1 THEN PERFORM nextval(pg_get_serial_sequence('agent_events', 'id')); END IF; RETURN NEW; END $$`);
    await client.query("CREATE TRIGGER take_id BEFORE INSERT ON agent_events FOR EACH ROW EXECUTE FUNCTION take_id()");
    try {
      const logs = [log(5, 0), log(5, 1), log(6, 0)];
      const rows = logs.flatMap((l) => [row(l, "payment_sent", "Agent A"), row(l, "payment_received", "Shop")]);
      const result = await writeBatch(client, { ...base, previousBlock: 4n, toBlock: 6n, toBlockHash: null, prepared: prepareBatch(logs, rows, { bulk }) });
      const { rows: stored } = await client.query("SELECT id::text, tx_hash, agent_id FROM agent_events WHERE source_block >= 5 ORDER BY id");
      expect(stored.map((s) => [s.tx_hash, s.agent_id])).toEqual(rows.map((r) => [r.txHash, r.agentId])); // matcher's order
      const ids = stored.map((s) => BigInt(s.id));
      expect(ids.at(-1)! - ids[0]!).toBe(BigInt(rows.length - 1 + 2)); // two gaps
      expect(result).toMatchObject({ eventsInserted: rows.length, firstEventId: ids[0], lastEventId: ids.at(-1) });
    } finally {
      await client.query("DROP TRIGGER take_id ON agent_events; DROP FUNCTION take_id()");
    }
  });
});

describe("prepareBatch", () => {
  it("takes the COPY path from BULK_MIN_LOGS raw logs on, parameter arrays below", () => {
    const small = Array.from({ length: BULK_MIN_LOGS - 1 }, (_, i) => log(1 + Math.floor(i / 500), i % 500));
    expect(prepareBatch(small, []).bulk).toBe(false);
    expect(prepareBatch([...small, log(9, 0)], []).bulk).toBe(true);
  });
});

describe("writeBatch, COPY path, with outside text in the checkpoint", () => {
  it("a stream id and block hash holding quotes, backslashes and the script's quoting tag are stored as given", async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const streamId = "s'$claim$;--\\";
      const hash = "0x'$claim$ $claim0$); DROP TABLE raw_logs; --";
      const logs = [log(1, 0)];
      const rows = [row(logs[0]!, "payment_sent", "Agent A")];
      const result = await writeBatch(client, {
        streamId,
        chainId: 1,
        startBlock: 1n,
        previousBlock: 0n,
        toBlock: 1n,
        toBlockHash: hash,
        prepared: prepareBatch(logs, rows, { bulk: true }),
      });
      expect(result).toMatchObject({ rawLogsInserted: 1, eventsInserted: 1 });
      expect((await client.query("SELECT id, last_block::int, last_block_hash FROM indexer_checkpoints")).rows).toEqual([
        { id: streamId, last_block: 1, last_block_hash: hash },
      ]);
      await expect(
        writeBatch(client, {
          streamId,
          chainId: 1,
          startBlock: 1n,
          previousBlock: 0n,
          toBlock: 2n,
          toBlockHash: hash,
          prepared: prepareBatch([log(2, 0)], [], { bulk: true }),
        }),
      ).rejects.toBeInstanceOf(CheckpointConflictError);
      expect((await client.query("SELECT count(*)::int AS n FROM raw_logs")).rows[0].n).toBe(1);
    } finally {
      await client.end();
      await db.drop();
    }
  });
});
