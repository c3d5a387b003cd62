import type { ReadRouting, ReadRoutingStatus } from "@agent-ledger/db";
import type pg from "pg";
import { createChainHead, type ChainHead } from "./createChainHead.ts";
import { createRedisPing, type RedisPing } from "./createRedisPing.ts";

export interface ReadinessOptions {
  /** Redis to PING (REDIS_URL); absent = not checked (reported as skipped). */
  redisUrl?: string | null;
  /** Tempo JSON-RPC for the chain head (TEMPO_RPC_URL); absent = the head lag is not checked (reported as skipped). */
  rpcUrl?: string | null;
  /** Most blocks the checkpoint may trail the head (default 100). */
  maxLagBlocks?: number;
  /**
   * Most seconds the checkpoint may go without moving while it is not known to be at the head (default 0 = no bound).
   * A checkpoint at the head may be old: the indexer writes nothing while no block arrives.
   */
  maxCheckpointAgeSeconds?: number;
  /** Timeout of each check: database query, Redis PING, eth_blockNumber (default 1 s). */
  timeoutMs?: number;
  /** How long the chain head is reused (default 1 s). */
  headCacheMs?: number;
}

export interface CheckpointInfo {
  stream: string;
  lastBlock: number;
  updatedAt: string;
  ageSeconds: number;
}

export interface IndexerCheck {
  ok: boolean;
  stream: string | null;
  lastBlock: number | null;
  updatedAt: string | null;
  ageSeconds: number | null;
  maxAgeSeconds: number | null;
  head: number | null;
  lagBlocks: number | null;
  maxLagBlocks: number | null;
  /** Why the head is unknown: `TEMPO_RPC_URL not configured`, or the RPC error. */
  headError?: string;
  problems: string[];
}

export type DependencyCheck = { ok: true; ms: number } | { ok: true; skipped: string } | { ok: false; error: string };

export interface ReadinessReport {
  ok: boolean;
  /** Kept from the first /readyz: "ok" | "unreachable". */
  database: "ok" | "unreachable";
  /** Kept from the first /readyz: the newest checkpoint, snake_case, or null. */
  indexer: { stream: string; last_block: number; updated_at: string } | null;
  checks: { database: DependencyCheck; redis: DependencyCheck; indexer: IndexerCheck };
  /**
   * Read replicas (only when DATABASE_READ_URLS is set): each one's state from the last probe round and where public
   * reads go now. Informational: a replica down or lagging never makes /readyz fail (its reads fall back to the primary).
   */
  replicas?: ReadRoutingStatus;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Readiness: the database answers, Redis answers PING, and the indexer is close to the chain head (head − checkpoint
 * ≤ maxLagBlocks) and not stalled (checkpoint age ≤ maxCheckpointAgeSeconds unless it is at the head). Each check has
 * a short timeout and all run concurrently, so a probe answers within about `timeoutMs`.
 */
export function createReadiness(db: Pick<pg.Pool, "query">, options: ReadinessOptions = {}, readRouting: ReadRouting | null = null) {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const maxLagBlocks = options.maxLagBlocks ?? 100;
  const maxAge = options.maxCheckpointAgeSeconds ?? 0;
  const redis: RedisPing | null = options.redisUrl ? createRedisPing({ url: options.redisUrl, timeoutMs }) : null;
  const head: (() => Promise<ChainHead>) | null = options.rpcUrl
    ? createChainHead({ rpcUrl: options.rpcUrl, timeoutMs, cacheMs: options.headCacheMs ?? 1_000 })
    : null;

  /** The newest checkpoint (any stream), its age by the database's clock; throws when the database is unreachable. */
  async function readCheckpoint(): Promise<CheckpointInfo | null> {
    const { rows } = await withTimeout(
      db.query<{ id: string; last_block: string; updated_at: Date; age: number }>(
        `SELECT id, last_block::text, updated_at, extract(epoch FROM now() - updated_at)::float8 AS age
         FROM indexer_checkpoints ORDER BY updated_at DESC LIMIT 1`,
      ),
      timeoutMs,
      "database",
    );
    const r = rows[0];
    return r
      ? { stream: r.id, lastBlock: Number(r.last_block), updatedAt: r.updated_at.toISOString(), ageSeconds: Math.max(0, Math.round(r.age * 10) / 10) }
      : null;
  }

  function evaluateIndexer(checkpoint: CheckpointInfo | null, chainHead: ChainHead | null): IndexerCheck {
    const check: IndexerCheck = {
      ok: true,
      stream: checkpoint?.stream ?? null,
      lastBlock: checkpoint?.lastBlock ?? null,
      updatedAt: checkpoint?.updatedAt ?? null,
      ageSeconds: checkpoint?.ageSeconds ?? null,
      maxAgeSeconds: maxAge > 0 ? maxAge : null,
      head: chainHead?.ok ? chainHead.block : null,
      lagBlocks: null,
      maxLagBlocks: head ? maxLagBlocks : null,
      problems: [],
    };
    if (!head) check.headError = "TEMPO_RPC_URL not configured";
    else if (chainHead && !chainHead.ok) check.headError = chainHead.error;
    const bounded = head !== null || maxAge > 0;
    if (!checkpoint) {
      if (bounded) check.problems.push("no indexer checkpoint yet");
    } else {
      if (check.head !== null) check.lagBlocks = Math.max(0, check.head - checkpoint.lastBlock);
      if (head && check.head === null) check.problems.push(`chain head unknown (${check.headError})`);
      if (check.lagBlocks !== null && check.lagBlocks > maxLagBlocks)
        check.problems.push(`indexer ${check.lagBlocks} blocks behind the head (max ${maxLagBlocks})`);
      const atHead = check.lagBlocks === 0;
      if (maxAge > 0 && !atHead && checkpoint.ageSeconds > maxAge) {
        check.problems.push(
          `checkpoint unchanged for ${checkpoint.ageSeconds} s (max ${maxAge} s) while ${check.lagBlocks === null ? "the head is unknown" : "behind the head"}`,
        );
      }
    }
    check.ok = check.problems.length === 0;
    return check;
  }

  async function checkIndexer(): Promise<{ database: DependencyCheck; checkpoint: CheckpointInfo | null; indexer: IndexerCheck }> {
    const started = performance.now();
    const [cp, chainHead] = await Promise.all([
      readCheckpoint().then(
        (value) => ({ ok: true as const, value, ms: performance.now() - started }),
        (error: Error) => ({ ok: false as const, error: error.message }),
      ),
      head ? head() : Promise.resolve(null),
    ]);
    if (!cp.ok) {
      const indexer = evaluateIndexer(null, chainHead);
      indexer.ok = false;
      indexer.problems = ["database unreachable"];
      return { database: { ok: false, error: cp.error }, checkpoint: null, indexer };
    }
    return { database: { ok: true, ms: round(cp.ms) }, checkpoint: cp.value, indexer: evaluateIndexer(cp.value, chainHead) };
  }

  async function checkRedis(): Promise<DependencyCheck> {
    if (!redis) return { ok: true, skipped: "REDIS_URL not configured" };
    try {
      return { ok: true, ms: round(await redis.ping()) };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  return {
    /** Runs every check. */
    async check(): Promise<ReadinessReport> {
      const [ix, redisCheck] = await Promise.all([checkIndexer(), checkRedis()]);
      const cp = ix.checkpoint;
      return {
        ok: ix.database.ok && redisCheck.ok && ix.indexer.ok,
        database: ix.database.ok ? "ok" : "unreachable",
        indexer: cp ? { stream: cp.stream, last_block: cp.lastBlock, updated_at: cp.updatedAt } : null,
        checks: { database: ix.database, redis: redisCheck, indexer: ix.indexer },
        ...(readRouting ? { replicas: readRouting.status() } : {}),
      };
    },
    /** Only the indexer part (for the lag gauges at scrape time). */
    checkIndexer: async (): Promise<IndexerCheck> => (await checkIndexer()).indexer,
    close(): void {
      redis?.close();
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;

/** One line naming what failed, for the 503's `error.message` and the log. */
export function describeFailures(report: ReadinessReport): string {
  const parts: string[] = [];
  const { database, redis, indexer } = report.checks;
  if (!database.ok) parts.push(`database: ${"error" in database ? database.error : "unreachable"}`);
  if (!redis.ok) parts.push(`redis: ${"error" in redis ? redis.error : "unreachable"}`);
  if (!indexer.ok && database.ok) parts.push(`indexer: ${indexer.problems.join("; ")}`);
  return parts.join("; ") || "not ready";
}
