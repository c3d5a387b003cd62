// `npm run bench:indexer-write` — the indexer's write path alone, without a node: ~100,000 synthetic logs shaped like
// bench:indexer's chain (per transaction a Transfer, a TransferWithMemo and a fee Transfer between ten watched
// accounts, 464 transactions per block) are matched by core and stored by prepareBatch → writeBatch in 10,032-log
// batches (whole transactions) into a freshly migrated database. Prints, per repetition, the wall time and the CPU
// seconds of Node and of the writing PostgreSQL backend: the backend's share is what bench:indexer cannot isolate
// from anvil's noise. Options: BENCH_REPS (default 3), BENCH_SCHEMA_SQL (SQL run after the migrations, to measure a
// schema variant, e.g. dropping an index), BENCH_WRITE_DATABASE_URL.
import { randomBytes } from "node:crypto";
import os from "node:os";
import { FEE_MANAGER_ADDRESS, TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC, matchLogs, parseRegistry, type RawLog } from "@agent-ledger/core";
import { createPgPool, loadMatchContext, loadRegistryIntoDb, resetDatabase } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "../src/store/writeBatch.ts";
import { readProcessCpuSeconds } from "./readProcessCpuSeconds.ts";

const DB = process.env.BENCH_WRITE_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger_bench_write";
const REPS = Number(process.env.BENCH_REPS ?? 3);
const TXS = 33_434;
const TXS_PER_BLOCK = 464;
const BATCH_LOGS = 10_032; // a multiple of 3: batches hold whole transactions, as the indexer's block ranges do

const accounts = Array.from({ length: 10 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "a")}`);
const token = "0x20c0000000000000000000000000000000000001";
const topicOf = (address: string) => `0x${"0".repeat(24)}${address.slice(2)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;
const hash = () => `0x${randomBytes(32).toString("hex")}`;

const logs: RawLog[] = [];
for (let i = 0; i < TXS; i++) {
  const block = BigInt(1 + Math.floor(i / TXS_PER_BLOCK));
  const from = accounts[i % 10]!;
  const to = accounts[(i + 1) % 10]!;
  const base = {
    blockNumber: block,
    blockHash: word(block),
    blockTimestamp: 1_790_000_000 + Number(block),
    txHash: hash(),
    txIndex: i % TXS_PER_BLOCK,
    address: token,
  };
  const logIndex = (i % TXS_PER_BLOCK) * 3;
  const amount = word(1_000n + BigInt(i));
  logs.push({ ...base, logIndex, topics: [TRANSFER_TOPIC, topicOf(from), topicOf(to)], data: amount });
  logs.push({ ...base, logIndex: logIndex + 1, topics: [TRANSFER_WITH_MEMO_TOPIC, topicOf(from), topicOf(to), hash()], data: amount });
  logs.push({ ...base, logIndex: logIndex + 2, topics: [TRANSFER_TOPIC, topicOf(from), topicOf(FEE_MANAGER_ADDRESS)], data: word(17n) });
}

console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}; ${logs.length} logs, ${REPS} repetitions` +
    (process.env.BENCH_SCHEMA_SQL ? `; schema variant: ${process.env.BENCH_SCHEMA_SQL}` : ""),
);
const registryPool = createPgPool(DB, { max: 1 });
const backendCpu: number[] = [];
try {
  for (let rep = 1; rep <= REPS; rep++) {
    await resetDatabase(DB);
    await loadRegistryIntoDb(
      registryPool,
      parseRegistry({
        registry_version: 1,
        network: "devnet",
        entities: accounts.map((a, i) => ({ id: `bench-${i}`, label: `Bench ${i}`, category: "bench", wallets: [a] })),
      }),
      "bench",
    );
    const pool = createPgPool(DB, { max: 1 });
    const client = await pool.connect();
    try {
      if (process.env.BENCH_SCHEMA_SQL) await client.query(process.env.BENCH_SCHEMA_SQL);
      await client.query("CHECKPOINT");
      await new Promise((r) => setTimeout(r, 1_500)); // let the checkpoint's writes drain
      const context = await loadMatchContext(client, "https://explore.tempo.xyz");
      const pid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
      const backendBefore = readProcessCpuSeconds(pid);
      const selfBefore = process.cpuUsage();
      const started = performance.now();
      let prepareMs = 0,
        writeMs = 0,
        rows = 0,
        previous = 0n;
      for (let i = 0; i < logs.length; i += BATCH_LOGS) {
        const batch = logs.slice(i, i + BATCH_LOGS);
        const t0 = performance.now();
        const prepared = prepareBatch(batch, matchLogs(batch, context));
        const t1 = performance.now();
        const toBlock = batch.at(-1)!.blockNumber;
        await writeBatch(client, { streamId: "bench", chainId: 1, startBlock: 0n, previousBlock: previous, toBlock, toBlockHash: null, prepared });
        previous = toBlock;
        rows += prepared.rows.length;
        prepareMs += t1 - t0;
        writeMs += performance.now() - t1;
      }
      const seconds = (performance.now() - started) / 1000;
      const self = process.cpuUsage(selfBefore);
      const backend = readProcessCpuSeconds(pid) - backendBefore;
      backendCpu.push(backend);
      console.log(
        `rep ${rep}: ${logs.length} logs, ${rows} rows in ${seconds.toFixed(2)} s (match + prepare ${(prepareMs / 1000).toFixed(2)} s, write ${(writeMs / 1000).toFixed(2)} s); ` +
          `CPU seconds: Node ${((self.user + self.system) / 1e6).toFixed(2)}, writing PostgreSQL backend ${backend.toFixed(2)}`,
      );
    } finally {
      client.release();
      await pool.end();
    }
  }
} finally {
  await registryPool.end();
}
const sorted = [...backendCpu].sort((a, b) => a - b);
console.log(
  `backend CPU seconds per ${logs.length} logs: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}, min ${sorted[0]!.toFixed(2)}, max ${sorted.at(-1)!.toFixed(2)}`,
);
