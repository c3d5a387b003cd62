// The worker processes of `npm run bench:webhooks` (bench/webhooks.bench.ts) and the waits around them. The bench
// once waited forever: it polled for the dispatch cursor for at most 20 s, then wrote its probe event anyway and waited
// without a limit for the probe's deliveries. A first-ever cursor starts at the watermark ("from now on",
// docs/webhooks.md), so a probe written before the worker's first dispatch pass is never delivered; and rows of v0.1
// are never dispatched by a worker left at the default METHODOLOGY_VERSION (v0.3). Stopped by hand, the bench left its
// worker running. Hence:
//   - spawnBenchWorker: the worker from the sources, told the version of the bench's rows, logging at info so that
//     its own "webhook worker ready" line (logged once the dispatch cursor exists) can be waited for;
//   - every wait has a limit and names what it waited for when it gives up (waitForLog, waitUntil);
//   - the children are stopped on normal exit, on error and on SIGINT/SIGTERM (stopChildren, stopChildrenOnExit).
// Tested in test/bench.workers.test.ts.
import { spawn, type ChildProcess } from "node:child_process";

/**
 * The methodology version of the rows the bench writes and the worker is told to dispatch (METHODOLOGY_VERSION): a
 * worker dispatches only its configured version, whose default (v0.3) derives no row from the bench's bare context.
 */
export const BENCH_METHODOLOGY_VERSION = "v0.1";

/** The worker's log line once it is ready: dispatch cursor created, delivery worker connected (startWorker.ts). */
export const WORKER_READY_MSG = "webhook worker ready";

const LEVEL_NAMES: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** A child process whose stdout and stderr are read line by line (pino JSON lines, or anything else). */
export interface LoggedChild {
  name: string;
  child: ChildProcess;
  /** The last lines of output (for error messages). */
  tail(): string;
  /**
   * Resolves with the fields of the first JSON line whose `msg` is `msg` (seen before or after the call); rejects,
   * naming the child and what it waited for, when the child exits first or after `timeoutMs`.
   */
  waitForLog(msg: string, timeoutMs: number): Promise<Record<string, unknown>>;
}

export interface SpawnLoggedOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Each output line; default: lines at warn level and above, and non-JSON lines, to stderr as `[name] line`. */
  onLine?: (line: string, parsed: Record<string, unknown> | null) => void;
}

function parseLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith("{")) return null;
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === "object" ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function spawnLogged(name: string, command: string, args: readonly string[], options: SpawnLoggedOptions = {}): LoggedChild {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const seen = new Map<string, Record<string, unknown>>();
  const waiters = new Set<() => void>();
  const onLine =
    options.onLine ??
    ((line: string, parsed: Record<string, unknown> | null) => {
      if (!parsed || typeof parsed.level !== "number" || parsed.level >= 40) process.stderr.write(`[${name}] ${line}\n`);
    });
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        if (!line.trim()) continue;
        lines.push(line);
        if (lines.length > 20) lines.shift();
        const parsed = parseLine(line);
        if (parsed && typeof parsed.msg === "string" && !seen.has(parsed.msg)) seen.set(parsed.msg, parsed);
        onLine(line, parsed);
        for (const wake of waiters) wake();
      }
    });
  }
  child.on("error", (error) => lines.push(`spawn error: ${error.message}`)); // "close" follows
  const tail = () =>
    lines
      .map((l) => {
        const p = parseLine(l);
        return p && typeof p.msg === "string"
          ? `${LEVEL_NAMES[p.level as number] ?? p.level}: ${p.msg}${p.err ? ` (${JSON.stringify(p.err).slice(0, 300)})` : ""}`
          : l;
      })
      .join("\n  ") || "(no output)";

  let closed = false; // exited and its output read to the end
  child.on("close", () => {
    closed = true;
    for (const wake of waiters) wake();
  });
  const how = () =>
    child.signalCode ? `was killed by ${child.signalCode}` : child.exitCode !== null ? `exited with code ${child.exitCode}` : "could not be started";

  return {
    name,
    child,
    tail,
    waitForLog(msg, timeoutMs) {
      return new Promise((resolve, reject) => {
        const what = `${name} (pid ${child.pid ?? "none"}) to log "${msg}"`;
        const finish = (error: Error | null, fields?: Record<string, unknown>) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(fields!);
        };
        const check = () => {
          const fields = seen.get(msg);
          if (fields) finish(null, fields);
          else if (closed) finish(new Error(`gave up waiting for ${what}: it ${how()} first; its last output:\n  ${tail()}`));
        };
        const timer = setTimeout(
          () => finish(new Error(`gave up waiting for ${what} after ${(timeoutMs / 1000).toFixed(0)} s; its last output:\n  ${tail()}`)),
          timeoutMs,
        );
        waiters.add(check);
        check();
      });
    },
  };
}

export interface BenchWorkerOptions {
  repoRoot: string;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  /** SECRETS_MASTER_KEY (base64 or hex). */
  masterKey: string;
  concurrency: number;
  /** Extra node flags (BENCH_NODE_ARGS, e.g. --cpu-prof). */
  nodeArgs?: readonly string[];
  /** More environment, applied last. */
  env?: Record<string, string>;
  name?: string;
}

/**
 * One worker process as the bench runs it: `packages/worker/src/main.ts` from the sources (the condition that makes the
 * workspace packages resolve to their sources, as in this process; without it they would load dist/, maybe stale),
 * METHODOLOGY_VERSION = the bench's rows', LOG_LEVEL=info for the ready line (the worker logs nothing at info per
 * successful delivery).
 */
export function spawnBenchWorker(options: BenchWorkerOptions): LoggedChild {
  return spawnLogged(
    options.name ?? "worker",
    process.execPath,
    ["--conditions=agent-ledger-source", ...(options.nodeArgs ?? []), "--import", "tsx", "packages/worker/src/main.ts"],
    {
      cwd: options.repoRoot,
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl,
        REDIS_URL: options.redisUrl,
        QUEUE_PREFIX: options.prefix,
        SECRETS_MASTER_KEY: options.masterKey,
        NODE_ENV: "development",
        WORKER_CONCURRENCY: String(options.concurrency),
        WORKER_METRICS_PORT: "-1",
        LOG_LEVEL: "info",
        DISPATCH_POLL_MS: "1000",
        DISPATCH_PAGE_SIZE: "2000",
        METHODOLOGY_VERSION: BENCH_METHODOLOGY_VERSION,
        ...options.env,
      },
    },
  );
}

/**
 * Polls `check` every `everyMs` until it returns true; after `timeoutMs`, throws "gave up after N s waiting for
 * <what>" with `detail()` (the state that was seen) appended.
 */
export async function waitUntil(
  what: string,
  timeoutMs: number,
  check: () => boolean | Promise<boolean>,
  options: { everyMs?: number; detail?: () => string | Promise<string> } = {},
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) {
      const detail = options.detail ? await Promise.resolve(options.detail()).catch((e: unknown) => `(no detail: ${String(e)})`) : "";
      throw new Error(`gave up after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}${detail ? `: ${detail}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, options.everyMs ?? 50));
  }
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null && c.pid !== undefined;

/**
 * SIGTERM to every child still running, then up to `graceMs` for them to exit (the worker lets in-flight deliveries
 * finish), then SIGKILL to the rest. Returns the names of the children that had to be killed.
 */
export async function stopChildren(children: readonly LoggedChild[], graceMs: number): Promise<string[]> {
  const alive = children.filter((c) => running(c.child));
  const killed: string[] = [];
  await Promise.all(
    alive.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (!running(c.child)) return resolve();
          const timer = setTimeout(() => {
            killed.push(c.name);
            c.child.kill("SIGKILL");
          }, graceMs);
          c.child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          c.child.kill("SIGTERM");
        }),
    ),
  );
  return killed;
}

/**
 * Until the returned function is called: on SIGINT or SIGTERM, stops `children` (SIGTERM, `graceMs`, SIGKILL), runs
 * `cleanup` (at most `graceMs` more) and exits with 130 / 143; on any exit of this process (an uncaught error
 * included), SIGKILLs the children still running. `children` is read when a signal comes (add to it after the call).
 */
export function stopChildrenOnExit(
  children: readonly LoggedChild[],
  options: { graceMs: number; cleanup?: () => Promise<void>; log?: (line: string) => void },
): () => void {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const alive = children.filter((c) => running(c.child));
    log(`\n${signal}: stopping ${alive.length} child process(es) (${alive.map((c) => `${c.name} pid ${c.child.pid}`).join(", ") || "none running"})…`);
    void (async () => {
      const killed = await stopChildren(children, options.graceMs);
      if (killed.length) log(`  killed (no exit within ${options.graceMs} ms of SIGTERM): ${killed.join(", ")}`);
      if (options.cleanup) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          options.cleanup().catch((e: unknown) => log(`  cleanup failed: ${String(e)}`)),
          new Promise<void>(
            (r) => (timer = setTimeout(() => (log(`  cleanup did not finish within ${options.graceMs} ms; leaving it`), r()), options.graceMs)),
          ),
        ]);
        clearTimeout(timer);
      }
      process.exit(signal === "SIGINT" ? 130 : 143);
    })();
  };
  const onExit = () => {
    for (const c of children) if (running(c.child)) c.child.kill("SIGKILL");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", onExit);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("exit", onExit);
  };
}
