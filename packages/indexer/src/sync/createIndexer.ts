import {
  CURRENT_METHODOLOGY_VERSION,
  getBackoffDelay,
  matchLogs,
  nextChunkSize,
  selectWatchedLogs,
  type ChunkPolicy,
  type MatchContext,
  type RawLog,
} from "@agent-ledger/core";
import type pg from "pg";
import type { Logger } from "pino";
import type { RpcClient } from "../rpc/createRpcClient.ts";
import { fetchLogs } from "../rpc/fetchLogs.ts";
import { claimRollupsVersion } from "../store/claimRollupsVersion.ts";
import { isLogRangeError } from "../rpc/isLogRangeError.ts";
import { acquireAdvisoryLock } from "../store/acquireIndexerLock.ts";
import { findNewestRawLog } from "../store/findNewestRawLog.ts";
import { readCheckpoint } from "../store/readCheckpoint.ts";
import { prepareBatch, writeBatch, type BatchResult } from "../store/writeBatch.ts";
import { sleep } from "./sleep.ts";

export interface IndexerOptions {
  /** Checkpoint/lock name; defaults to `tempo-<chainId>`. */
  streamId?: string;
  startBlock: bigint;
  confirmations: number;
  methodologyVersion?: string;
  chunk: ChunkPolicy & { initial: number };
  pollIntervalMs: number;
  /** How often the registry view is reloaded while following the head. */
  contextTtlMs?: number;
  /** Keep every fetched log in raw_logs, not only those of transactions touching a watched wallet. */
  storeAllLogs?: boolean;
  /** eth_getLogs requests kept in flight ahead of the range being matched (default 2). */
  fetchAhead?: number;
  /** Stop once the checkpoint reaches this block (benchmarks, tests). */
  stopAtBlock?: bigint;
}

/** What the indexer reports as it runs (the metrics of ops/createIndexerMetrics.ts; every member optional). */
export interface IndexerObserver {
  /** true once this process holds the stream's lock, false while it waits as a standby and when it stops. */
  leader?(holds: boolean): void;
  /** The node's newest block (before confirmations). */
  head?(block: bigint): void;
  /** The last committed block: read at take-over, then after every batch. */
  checkpoint?(block: bigint): void;
  batch?(info: { logs: number; rows: number; writeMs: number }): void;
  /** One failed JSON-RPC call (it is retried). */
  rpcError?(method: string): void;
}

export interface IndexerDeps {
  rpc: RpcClient;
  /** A dedicated connection: holds the advisory lock and performs every write. */
  client: pg.ClientBase;
  loadContext: () => Promise<MatchContext>;
  log: Logger;
  observer?: IndexerObserver;
  /** Called after each committed batch (metrics, benchmarks). */
  onBatch?: (info: {
    fromBlock: bigint;
    toBlock: bigint;
    logs: number;
    kept: number;
    result: BatchResult;
    fetchMs: number;
    matchMs: number;
    writeMs: number;
  }) => void;
}

interface Fetched {
  from: bigint;
  to: bigint;
  logs: RawLog[];
  fetchMs: number;
}

/**
 * The indexer: backfills from the checkpoint (or `startBlock`) in adaptive `eth_getLogs` ranges, then
 * follows the head `confirmations` blocks behind. The next ranges are fetched (`fetchAhead` requests in
 * flight) while the current one is matched and the previous one written. RPC failures are retried with
 * backoff forever: a range is never skipped.
 */
export function createIndexer(deps: IndexerDeps, options: IndexerOptions) {
  const { rpc, client, log } = deps;
  const observer = deps.observer ?? {};
  const version = options.methodologyVersion ?? CURRENT_METHODOLOGY_VERSION;
  // v0.1 keeps whole seconds; later versions ask the node for milliseconds while it provides them (fetchLogs).
  const millis = { enabled: version !== "v0.1" };
  const contextTtlMs = options.contextTtlMs ?? 10_000;
  let chunkSize = options.chunk.initial;
  const fetchAheadCount = options.fetchAhead ?? 2;
  if (!Number.isInteger(fetchAheadCount) || fetchAheadCount < 1) throw new RangeError("fetchAhead must be an integer ≥ 1");

  async function withRetry<T>(what: string, fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (signal.aborted) throw error;
        observer.rpcError?.(what);
        const delay = getBackoffDelay(attempt, { baseMs: 250, maxMs: 30_000, random: Math.random() });
        log.warn({ err: (error as Error).message, attempt, retryInMs: delay }, `${what} failed; retrying`);
        await sleep(delay, signal);
      }
    }
  }

  async function safeHead(signal: AbortSignal): Promise<bigint> {
    const latest = BigInt(await withRetry("eth_blockNumber", () => rpc.request<string>("eth_blockNumber", []), signal));
    observer.head?.(latest);
    const head = latest - BigInt(options.confirmations);
    return options.stopAtBlock !== undefined && options.stopAtBlock < head ? options.stopAtBlock : head;
  }

  /**
   * The logs of exactly [from, to], fetched in `chunkSize` pieces: a range the node refuses as too large is split
   * (and later ranges start smaller); any other failure is retried with backoff. Nothing is skipped.
   */
  async function fetchRange(from: bigint, to: bigint, signal: AbortSignal): Promise<Fetched> {
    const started = performance.now();
    let logs: RawLog[] = [];
    let cursor = from;
    for (let attempt = 1; cursor <= to; ) {
      const end = cursor + BigInt(chunkSize) - 1n < to ? cursor + BigInt(chunkSize) - 1n : to;
      const pieceStarted = performance.now();
      try {
        const piece = await fetchLogs(rpc, cursor, end, millis);
        chunkSize = nextChunkSize(chunkSize, { type: "ok", elapsedMs: performance.now() - pieceStarted, logCount: piece.length }, options.chunk);
        logs = logs.length === 0 ? piece : logs.concat(piece);
        cursor = end + 1n;
        attempt = 1;
      } catch (error) {
        if (signal.aborted) throw error;
        if (isLogRangeError(error) && chunkSize > options.chunk.min) {
          const smaller = nextChunkSize(chunkSize, { type: "too_large" }, options.chunk);
          log.info({ from: cursor.toString(), to: end.toString(), chunkSize, next: smaller }, "range refused by the node; shrinking");
          chunkSize = smaller;
          continue;
        }
        observer.rpcError?.("eth_getLogs");
        const delay = getBackoffDelay(attempt, { baseMs: 250, maxMs: 30_000, random: Math.random() });
        log.warn(
          { err: (error as Error).message, from: cursor.toString(), to: end.toString(), attempt, retryInMs: delay },
          "eth_getLogs failed; retrying the same range",
        );
        attempt++;
        await sleep(delay, signal);
        if (signal.aborted) throw error;
      }
    }
    return { from, to, logs, fetchMs: performance.now() - started };
  }

  /**
   * Refuses to extend a ledger built from another chain (e.g. a devnet restarted from genesis): the
   * newest stored raw log's block (at or below the checkpoint) must still have the same hash on the node.
   */
  async function assertSameChain(checkpointBlock: bigint | null, signal: AbortSignal): Promise<void> {
    const newest = await findNewestRawLog(client, checkpointBlock);
    if (!newest) return;
    const block = await withRetry(
      "eth_getBlockByNumber",
      () => rpc.request<{ hash: string } | null>("eth_getBlockByNumber", [`0x${newest.blockNumber.toString(16)}`, false]),
      signal,
    );
    if (block?.hash.toLowerCase() !== newest.blockHash) {
      throw new Error(
        `the node at ${rpc.url} does not have block ${newest.blockNumber} with hash ${newest.blockHash} that this database was built from: wrong chain, or a devnet restarted from genesis (use a fresh database)`,
      );
    }
  }

  async function run(signal: AbortSignal): Promise<void> {
    const chainId = Number(BigInt(await withRetry("eth_chainId", () => rpc.request<string>("eth_chainId", []), signal)));
    const streamId = options.streamId ?? `tempo-${chainId}`;
    const release = await acquireAdvisoryLock(client, `agent-ledger:indexer:${streamId}`, {
      signal,
      onWait: () => log.info({ streamId }, "another indexer holds the lock for this stream; waiting"),
    });
    log.info({ streamId }, "indexer lock acquired");
    observer.leader?.(true);
    try {
      const checkpoint = await readCheckpoint(client, streamId);
      let last = checkpoint ? checkpoint.lastBlock : options.startBlock - 1n;
      if (checkpoint) observer.checkpoint?.(checkpoint.lastBlock);
      const startBlock = checkpoint?.startBlock ?? options.startBlock;
      if (checkpoint && checkpoint.startBlock !== options.startBlock) {
        log.warn(
          { stored: checkpoint.startBlock.toString(), configured: options.startBlock.toString() },
          "START_BLOCK differs from the stored checkpoint; resuming from the checkpoint",
        );
      }
      await assertSameChain(checkpoint ? checkpoint.lastBlock : null, signal);
      // the rollup tables hold one methodology version: never add another version's rows to them
      await claimRollupsVersion(client, version);
      log.info({ streamId, resumeFrom: (last + 1n).toString(), methodologyVersion: version }, "indexer starting");
      let context = await deps.loadContext();
      let contextLoadedAt = Date.now();
      let caughtUp = false;

      while (!signal.aborted) {
        if (options.stopAtBlock !== undefined && last >= options.stopAtBlock) break;
        const head = await safeHead(signal);
        if (last >= head) {
          if (!caughtUp) log.info({ block: last.toString() }, "caught up with the head; following");
          caughtUp = true;
          await sleep(options.pollIntervalMs, signal);
          continue;
        }
        if (Date.now() - contextLoadedAt > contextTtlMs) {
          context = await deps.loadContext();
          contextLoadedAt = Date.now();
        }
        // Three stages overlap: the node serves the next ranges (up to `fetchAhead` requests in flight) while Node
        // matches range N while PostgreSQL writes range N-1. Writes stay strictly sequential and in block order.
        // Invariant: the queued ranges are consecutive and end at `nextFrom - 1`; each one is fetched whole.
        const queue: Promise<Fetched>[] = [];
        let nextFrom = last + 1n;
        const fetchAhead = () => {
          while (queue.length < fetchAheadCount && nextFrom <= head) {
            const to = nextFrom + BigInt(chunkSize) - 1n < head ? nextFrom + BigInt(chunkSize) - 1n : head;
            const request = fetchRange(nextFrom, to, signal);
            request.catch(() => {}); // surfaced when awaited; avoid an unhandled rejection on shutdown
            queue.push(request);
            nextFrom = to + 1n;
          }
        };
        fetchAhead();
        let writing: Promise<void> | null = null;
        let writtenUpTo = last;
        while (queue.length > 0 && !signal.aborted) {
          const fetched: Fetched = await queue.shift()!;
          fetchAhead();
          const matchStarted = performance.now();
          const serverIds = context.serverIds;
          const kept = options.storeAllLogs
            ? fetched.logs
            : selectWatchedLogs(fetched.logs, (a) => context.wallets.has(a), serverIds && serverIds.size > 0 ? (id) => serverIds.has(id) : undefined);
          const rows = matchLogs(kept, context, version);
          const prepared = prepareBatch(kept, rows);
          const matchMs = performance.now() - matchStarted;
          const lastLog = fetched.logs.at(-1);
          if (writing) await writing; // the previous range is committed (or its failure surfaces here)
          const previousBlock = writtenUpTo;
          writtenUpTo = fetched.to;
          writing = (async () => {
            const writeStarted = performance.now();
            const result = await writeBatch(client, {
              streamId,
              chainId,
              startBlock,
              previousBlock,
              toBlock: fetched.to,
              toBlockHash: lastLog && lastLog.blockNumber === fetched.to ? lastLog.blockHash : null,
              prepared,
            });
            const writeMs = performance.now() - writeStarted;
            last = fetched.to;
            observer.checkpoint?.(fetched.to);
            observer.batch?.({ logs: fetched.logs.length, rows: result.eventsInserted, writeMs });
            // one line per batch (a block per batch when following the head): debug, `npm start -- --verbose`
            log.debug(
              {
                fromBlock: fetched.from.toString(),
                toBlock: fetched.to.toString(),
                logs: fetched.logs.length,
                kept: kept.length,
                rows: result.eventsInserted,
                fetchMs: Math.round(fetched.fetchMs),
                matchMs: Math.round(matchMs),
                writeMs: Math.round(writeMs),
                nextChunk: chunkSize,
              },
              "batch committed",
            );
            deps.onBatch?.({
              fromBlock: fetched.from,
              toBlock: fetched.to,
              logs: fetched.logs.length,
              kept: kept.length,
              result,
              fetchMs: fetched.fetchMs,
              matchMs,
              writeMs,
            });
          })();
          writing.catch(() => {}); // awaited above or below; this only avoids an unhandled rejection
        }
        if (writing) await writing;
        await Promise.allSettled(queue);
      }
      log.info({ lastBlock: last.toString() }, "indexer stopped");
    } catch (error) {
      // A stop request interrupts waits and retries; that is a clean exit, not a failure.
      if (!signal.aborted) throw error;
      log.info("indexer stopped");
    } finally {
      observer.leader?.(false);
      await release().catch(() => {});
    }
  }

  return { run };
}
