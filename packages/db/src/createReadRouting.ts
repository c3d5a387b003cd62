import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/** Where reads may go: the primary and its streaming replicas (each a pool of its own). */
export interface ReadRoutingOptions {
  primary: pg.Pool;
  replicas: { name: string; pool: pg.Pool }[];
  /** A replica whose indexer checkpoint trails the primary's by more blocks than this is not read (default 10). */
  maxLagBlocks?: number;
  /** How often every source is probed (checkpoint, WAL position, replay age) (default 1000 ms). */
  checkIntervalMs?: number;
  /** A probe that has not answered within this is a failure (default 1000 ms). */
  probeTimeoutMs?: number;
  /** Which replica this process prefers while several are eligible (default: process id modulo their number). */
  preferIndex?: number;
  /** Clock for the status timestamps. */
  now?: () => Date;
  /** Told when a source goes up or down (also a first probe that fails), or starts or stops being read. No URLs, no credentials. */
  log?: (event: ReadRoutingEvent) => void;
}

export interface ReadRoutingEvent {
  source: string;
  change: "up" | "down" | "eligible" | "ineligible";
  reason?: string;
}

/** One source as last seen (status(), /readyz, /metrics). */
export interface ReadSourceStatus {
  name: string;
  role: "primary" | "replica";
  up: boolean;
  /** Read by new requests now (the primary always is: it is the last resort). */
  eligible: boolean;
  /** Why a replica is not eligible (down, lagging, behind what this process already served, never probed). */
  reason: string | null;
  /** The newest indexer checkpoint (`indexer_checkpoints.last_block`) last probed; null before any or with no checkpoint. */
  block: number | null;
  /** Blocks behind the primary's checkpoint (0 for the primary; null while unknown). */
  lagBlocks: number | null;
  /** Seconds since the last replayed commit while the replica has not replayed all the primary's WAL (0 when caught up). */
  lagSeconds: number | null;
  /** Bytes of WAL the primary has and the replica has not replayed. */
  lagBytes: number | null;
  /** Queries answered by this source since start. */
  reads: number;
  /** Queries that failed on it and were answered by the primary instead. */
  fallbacks: number;
  checkedAt: string | null;
  error: string | null;
}

export interface ReadRoutingStatus {
  /** The source new requests are routed to now. */
  current: string;
  /** Upper bound of everything this process has served (the no-going-back floor), as block and WAL position. */
  watermark: { block: number | null; lsn: string };
  maxLagBlocks: number;
  sources: ReadSourceStatus[];
}

interface Probe {
  block: number | null;
  lsn: bigint;
  replayAge: number | null;
  /** Tick at which the probe was sent: it bounds from above everything the source had served before that tick. */
  tick: number;
}

interface Source {
  name: string;
  role: "primary" | "replica";
  pool: pg.Pool;
  up: boolean;
  /** The newest successful probe, and the one before it. */
  last: Probe | null;
  previous: Probe | null;
  /** The probe in flight and the tick it was sent at. */
  inFlightProbe: { tick: number; promise: Promise<Probe | null> } | null;
  checkedAt: Date | null;
  error: string | null;
  /** Tick at which the last query served by this source completed (-1: never served). */
  servedTick: number;
  /** `servedTick` when its reads were last bounded into the watermark (later probes must not raise it again). */
  settledTick: number;
  /** Queries running on it now. */
  running: number;
  reads: number;
  fallbacks: number;
  eligible: boolean;
  reason: string | null;
}

interface RequestScope {
  minBlock: number | null;
  source: Source | null;
}

const PROBE_SQL = `SELECT (SELECT max(last_block) FROM indexer_checkpoints)::text AS block,
  (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text AS lsn,
  CASE WHEN pg_is_in_recovery() THEN extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS replay_age`;

/** `16/B374D848` → bytes. */
function parseLsn(text: string): bigint {
  const [hi, lo] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * Errors after which the same read is answered by the primary: the source is unreachable, shut down, or cancelled the
 * statement (a replica cancels queries that conflict with recovery). A SQL error of the query itself (bad input) is not:
 * the primary would answer the same.
 */
function isSourceFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57|58|40001|XX)/.test(code);
  return true; // no SQLSTATE: connection refused/reset, timeout, "Connection terminated"
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Public reads on streaming replicas (docs/operations.md, "Read replicas"). `reader` is a `query()` handle that sends each
 * read to one source: a replica that is up, within `maxLagBlocks` of the primary's indexer checkpoint, and not older than
 * anything this process has already served; else the primary, which is never older than its replicas. A read that fails
 * on a replica for a source reason is answered by the primary in the same call, and the replica is not read again until
 * a probe finds it up.
 *
 * No going back: every source only moves forward, so a process that stays on one source never goes back. It switches to
 * another replica only when no source has a read whose upper bound is unknown (running, or completed after the last probe
 * of that source and of the primary) and the target's probed WAL position is at least the process's watermark (the
 * highest such upper bound). The primary can always be switched to. `scope()` pins a request to one source and takes a
 * client's `minBlock`; `servedBlock()` answers the watermark's block after probing what is pending, for a response header.
 */
export function createReadRouting(options: ReadRoutingOptions) {
  const maxLagBlocks = options.maxLagBlocks ?? 10;
  const checkIntervalMs = options.checkIntervalMs ?? 1_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 1_000;
  // How long new requests may wait while the process switches source (rare: after a fallback or a lag episode).
  const switchWaitMs = Math.min(probeTimeoutMs, 200);
  const now = options.now ?? (() => new Date());
  const log = options.log ?? (() => undefined);
  const make = (name: string, role: Source["role"], pool: pg.Pool): Source => ({
    name,
    role,
    pool,
    up: role === "primary",
    last: null,
    previous: null,
    inFlightProbe: null,
    checkedAt: null,
    error: null,
    servedTick: -1,
    settledTick: -1,
    running: 0,
    reads: 0,
    fallbacks: 0,
    eligible: role === "primary",
    reason: role === "primary" ? null : "not probed yet",
  });
  const primary = make("primary", "primary", options.primary);
  const replicas = options.replicas.map((r) => make(r.name, "replica", r.pool));
  const sources = [primary, ...replicas];
  const prefer = replicas.length ? (options.preferIndex ?? process.pid) % replicas.length : 0;
  const ordered = [...replicas.slice(prefer), ...replicas.slice(0, prefer)];
  const scopes = new AsyncLocalStorage<RequestScope>();

  let tick = 0;
  let current: Source = primary;
  /** Upper bound of every state served so far whose bound is known. */
  let watermark = { lsn: 0n, block: null as number | null };
  let timer: NodeJS.Timeout | null = null;
  let primaryBlock: number | null = null;

  function probe(source: Source): Promise<Probe | null> {
    const sent = ++tick;
    const promise = withTimeout(source.pool.query(PROBE_SQL), probeTimeoutMs).then(
      ({ rows }) => {
        const r = rows[0] as { block: string | null; lsn: string | null; replay_age: number | null };
        const result: Probe = { block: r.block === null ? null : Number(r.block), lsn: r.lsn ? parseLsn(r.lsn) : 0n, replayAge: r.replay_age, tick: sent };
        if (!source.last || source.last.tick < sent) {
          source.previous = source.last;
          source.last = result;
        }
        if (source === primary && result.block !== null) primaryBlock = Math.max(primaryBlock ?? 0, result.block);
        source.checkedAt = now();
        source.error = null;
        if (!source.up) log({ source: source.name, change: "up" });
        source.up = true;
        return result;
      },
      (error: Error) => {
        markDown(source, error);
        return null;
      },
    );
    source.inFlightProbe = { tick: sent, promise };
    void promise.finally(() => {
      if (source.inFlightProbe?.tick === sent) source.inFlightProbe = null;
    });
    return promise;
  }

  /** A failed probe or read. The primary stays the last resort whatever its state; `up` only reports it. */
  function markDown(source: Source, error: Error): void {
    if (source.up || source.checkedAt === null) log({ source: source.name, change: "down", reason: error.message });
    source.checkedAt = now();
    source.error = error.message;
    source.up = false;
  }

  /**
   * An upper bound of what this source served: a probe of it sent after its last completed read; for a replica that is
   * down, also a probe of the primary (never older than its replicas) — the tighter of the two. A replica that is up
   * waits for its own probe: the primary's would raise the watermark past it and send reads away from it for nothing.
   */
  function upperBound(source: Source): Probe | null {
    const probes = source.role === "replica" && !source.up ? [source.last, primary.last] : [source.last];
    const candidates = probes.filter((p): p is Probe => p !== null && p.tick > source.servedTick);
    return candidates.sort((a, b) => (a.lsn < b.lsn ? -1 : 1))[0] ?? null;
  }

  /**
   * A probe of `source` sent after tick `after`: the one in flight if it was, else the next one, shared by everyone who
   * waits for it (so concurrent requests finishing at once cost about one probe per round trip, not one each).
   */
  function probeAfter(source: Source, after: number): Promise<Probe | null> {
    const inFlight = source.inFlightProbe;
    if (inFlight && inFlight.tick > after) return inFlight.promise;
    if (inFlight) return inFlight.promise.then(() => probeAfter(source, after));
    return probe(source);
  }

  /** A probe bounding what `source` served up to tick `after`: its own (sent after it), else the primary's if it is down. */
  async function boundAfter(source: Source, after: number): Promise<Probe | null> {
    if (source.last && source.last.tick > after) return source.last;
    const own = await probeAfter(source, after);
    if (own || source === primary) return own;
    return primary.last && primary.last.tick > after ? primary.last : probeAfter(primary, after);
  }

  /** Raises the watermark by every bound now known; answers the sources whose bound is not (running or unprobed since). */
  function settle(): Source[] {
    const pending: Source[] = [];
    for (const s of sources) {
      if (s.servedTick === s.settledTick && s.running === 0) continue; // nothing served since it was bounded
      const bound = s.running > 0 ? null : upperBound(s);
      if (!bound) {
        pending.push(s);
        continue;
      }
      s.settledTick = s.servedTick;
      if (bound.lsn > watermark.lsn) watermark = { ...watermark, lsn: bound.lsn };
      if (bound.block !== null && (watermark.block === null || bound.block > watermark.block)) watermark = { ...watermark, block: bound.block };
    }
    return pending;
  }

  const PENDING = "another source's last reads are not bounded yet";

  /** Why a replica may not be read by a request needing `minBlock`, or null when it may. */
  function refusal(s: Source, minBlock: number | null, pending: Source[]): string | null {
    if (!s.up) return "down";
    if (!s.last) return "not probed yet";
    const block = s.last.block;
    if (primaryBlock !== null && (block === null || primaryBlock - block > maxLagBlocks))
      return `${block === null ? "no checkpoint" : `${primaryBlock - block} blocks`} behind the primary (max ${maxLagBlocks})`;
    if (s.last.lsn < watermark.lsn) return "older than what this process already served";
    if (minBlock !== null && (block === null || block < minBlock)) return `before the requested block ${minBlock}`;
    if (pending.some((p) => p !== s)) return PENDING;
    return null;
  }

  let switching: Promise<void> | null = null;
  /** Set when a switch failed: no new attempt before the next check round. */
  let switchBlocked = false;

  /**
   * A switch to `target` while other sources have unbounded reads: new requests wait (they go nowhere), the running
   * reads finish, each pending source is probed (the primary for one that is down), and the target is probed until it
   * has replayed that far. Bounded by `switchWaitMs`; on failure requests go on where they went until the next round.
   */
  async function switchTo(target: Source, pending: Source[]): Promise<void> {
    const deadline = performance.now() + switchWaitMs;
    while (pending.some((s) => s.running > 0) && performance.now() < deadline) await sleep(2);
    let need = 0n;
    for (const s of pending) {
      const bound = s.running > 0 ? null : ((await probe(s)) ?? (s === primary ? null : await probe(primary)));
      if (!bound) {
        switchBlocked = true;
        return;
      }
      if (bound.lsn > need) need = bound.lsn;
    }
    while (performance.now() < deadline) {
      const seen = await probe(target);
      if (!seen) break;
      if (seen.lsn >= need) {
        // A request already pinned to a pending source may have read again meanwhile: then not this time.
        if (refusal(target, null, settle()) === null) current = target;
        else switchBlocked = true;
        return;
      }
      await sleep(5);
    }
    switchBlocked = true;
  }

  /**
   * Whether a switch to `target` is worth holding requests for: at the last round it had replayed at least what each pending
   * source had the round before (a paused or stuck replica never holds requests; a streaming one catches up in milliseconds).
   */
  function keepsUp(target: Source, pending: Source[]): boolean {
    const at = target.last?.lsn ?? -1n;
    return pending.every((s) => s === target || at >= ((s.up ? s.previous : primary.previous)?.lsn ?? 0n));
  }

  async function choose(minBlock: number | null): Promise<Source> {
    for (let attempt = 0; ; attempt++) {
      if (switching) await switching;
      const pending = settle();
      // Stay on the current replica while it qualifies (no switch = no way back), else the first that does, else the primary.
      let blocked: Source | null = null;
      for (const s of current.role === "replica" ? [current, ...ordered.filter((r) => r !== current)] : ordered) {
        const reason = refusal(s, minBlock, pending);
        if (reason === null) return (current = s);
        if (reason === PENDING) blocked ??= s;
      }
      if (!blocked || switchBlocked || attempt > 0 || !keepsUp(blocked, pending)) return (current = primary);
      const target = blocked;
      switching ??= switchTo(
        target,
        pending.filter((p) => p !== target),
      ).finally(() => {
        switching = null;
      });
    }
  }

  async function run(source: Source, args: unknown[]): Promise<pg.QueryResult> {
    source.running++;
    try {
      const result = await (source.pool.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args);
      source.reads++;
      return result;
    } finally {
      source.running--;
      source.servedTick = ++tick;
    }
  }

  async function query(...args: unknown[]): Promise<pg.QueryResult> {
    const scope = scopes.getStore();
    const source = scope?.source ?? (await choose(scope?.minBlock ?? null));
    if (scope) scope.source = source;
    if (source === primary) return run(primary, args);
    try {
      return await run(source, args);
    } catch (error) {
      if (!isSourceFailure(error)) throw error;
      source.fallbacks++;
      markDown(source, error as Error);
      if (scope) scope.source = primary; // the rest of the request too: the primary is never older
      if (current === source) current = primary;
      return run(primary, args);
    }
  }

  function evaluate(): void {
    settle();
    for (const s of replicas) {
      // Pending reads elsewhere only delay a switch (switchTo); they do not make a replica unfit.
      const reason = refusal(s, null, []);
      const eligible = reason === null;
      if (eligible !== s.eligible) log({ source: s.name, change: eligible ? "eligible" : "ineligible", ...(reason ? { reason } : {}) });
      s.eligible = eligible;
      s.reason = reason;
    }
  }

  /** One round: every source probed at once. */
  async function check(): Promise<void> {
    await Promise.all(sources.map(probe));
    switchBlocked = false;
    evaluate();
  }

  return {
    /** The `query()` handle for public reads (a drop-in for `pg.Pool`'s). */
    reader: { query: query as unknown as pg.Pool["query"] },
    /** Runs `fn` as one request: its reads all go to one source (the primary after a failure), at least at `minBlock`. */
    scope<T>(request: { minBlock?: number | null }, fn: () => T): T {
      return scopes.run({ minBlock: request.minBlock ?? null, source: null }, fn);
    },
    /**
     * An upper bound of the checkpoint of every state this process has served so far (for `X-Ledger-Block`): a client
     * that asks for at least this block elsewhere sees everything it was shown here. Null when no checkpoint exists yet
     * or no probe can bound a source.
     */
    async servedBlock(): Promise<number | null> {
      // Every read completed so far (this answer's, and those behind a cached or shared answer it carries) is bounded
      // by a probe of its source sent after it — reads still running belong to other answers and are not waited for.
      const marks = sources.filter((s) => s.servedTick >= 0).map((s) => [s, s.servedTick] as const);
      const bounds = await Promise.all(marks.map(([s, after]) => boundAfter(s, after)));
      if (bounds.some((b) => b === null)) return null; // neither the source nor the primary answered: no honest block
      settle();
      let block = watermark.block;
      for (const b of bounds) if (b?.block != null && (block === null || b.block > block)) block = b.block;
      return block;
    },
    check,
    start(): void {
      if (timer) return;
      void check();
      timer = setInterval(() => void check(), checkIntervalMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
    },
    status(): ReadRoutingStatus {
      settle();
      const primaryLast = primary.last;
      return {
        current: current.name,
        watermark: { block: watermark.block, lsn: formatLsn(watermark.lsn) },
        maxLagBlocks,
        sources: sources.map((s) => {
          const caughtUp = s.last && primaryLast ? s.last.lsn >= primaryLast.lsn : false;
          return {
            name: s.name,
            role: s.role,
            up: s.up,
            eligible: s.role === "primary" || (s.up && s.eligible),
            reason: s.role === "primary" ? null : s.up ? s.reason : "down",
            block: s.last?.block ?? null,
            lagBlocks: s.role === "primary" ? 0 : primaryBlock !== null && s.last?.block != null ? Math.max(0, primaryBlock - s.last.block) : null,
            lagSeconds:
              s.role === "primary"
                ? 0
                : !s.last || !s.up
                  ? null
                  : caughtUp
                    ? 0
                    : s.last.replayAge === null
                      ? null
                      : Math.max(0, Math.round(s.last.replayAge * 10) / 10),
            lagBytes: s.role === "primary" ? 0 : s.last && primaryLast ? Math.max(0, Number(primaryLast.lsn - s.last.lsn)) : null,
            reads: s.reads,
            fallbacks: s.fallbacks,
            checkedAt: s.checkedAt?.toISOString() ?? null,
            error: s.error,
          };
        }),
      };
    },
  };
}

export type ReadRouting = ReturnType<typeof createReadRouting>;
