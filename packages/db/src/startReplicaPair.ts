import { execFile, execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** A throwaway PostgreSQL primary and its streaming replica, started by a test or a benchmark and stopped by it. */
export interface ReplicaPair {
  /** The database on the primary (writes go here). */
  primaryUrl: string;
  /** The same database on the replica (read-only, streaming from the primary). */
  replicaUrl: string;
  /** The temporary folder holding both data directories and their logs. */
  dir: string;
  /** Stops the replica's server (fast shutdown): connections to it are refused until `startReplica`. */
  stopReplica(): Promise<void>;
  /** Starts the replica again and waits until it accepts connections. */
  startReplica(): Promise<void>;
  /** `pg_wal_replay_pause()` on the replica: it keeps receiving WAL but stops applying it (a controllable lag). */
  pauseReplay(): Promise<void>;
  /** `pg_wal_replay_resume()` on the replica. */
  resumeReplay(): Promise<void>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /** Stops both servers and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ReplicaPairOptions {
  /** Database created on the primary before the base backup (default `agent_ledger`). */
  database?: string;
  /** Run on the primary's database before the base backup (for example the migrations). */
  prepare?: (primaryUrl: string) => Promise<unknown>;
  /** Extra `-c name=value` settings for both servers. */
  settings?: Record<string, string>;
}

// The recipe (docs/operations.md, Scaling → "Testing with a real replica"): initdb a private cluster that accepts
// replication connections on loopback, pg_basebackup -R it (with a fast checkpoint: the default spread one waits ~90 s) into a second data directory, start both on free ports.
// The machine's own cluster is not touched. PostgreSQL refuses to run as root, so as root the servers run as `postgres`.
const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function bin(name: string): string {
  for (const dir of ["/usr/local/bin", "/usr/lib/postgresql/15/bin", "/usr/bin"]) {
    try {
      execFileSync("test", ["-x", path.join(dir, name)]);
      return path.join(dir, name);
    } catch {
      // next folder
    }
  }
  return name;
}

async function pgCommand(name: string, args: string[]): Promise<void> {
  const file = bin(name);
  try {
    if (asRoot) await run("runuser", ["-u", "postgres", "--", file, ...args]);
    else await run(file, args);
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${name} failed: ${(e.stderr ?? "").trim() || e.message}`, { cause: error });
  }
}

function pgCommandSync(name: string, args: string[]): void {
  const file = bin(name);
  try {
    if (asRoot) execFileSync("runuser", ["-u", "postgres", "--", file, ...args], { stdio: "ignore" });
    else execFileSync(file, args, { stdio: "ignore" });
  } catch {
    // already stopped
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`, { cause: last });
}

/**
 * Starts a throwaway primary and a streaming replica of it (PostgreSQL's own binaries: initdb, pg_ctl,
 * pg_basebackup). Call `stop()` in the test's teardown; a process that exits without it stops both servers too.
 */
export async function startReplicaPair(options: ReplicaPairOptions = {}): Promise<ReplicaPair> {
  const database = options.database ?? "agent_ledger";
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-ledger-replica-"));
  chmodSync(dir, 0o755);
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const primaryDir = path.join(dir, "primary");
  const replicaDir = path.join(dir, "replica");
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const settings = { fsync: "off", full_page_writes: "off", ...options.settings };
  const serverOptions = (port: number) =>
    [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(" ");
  const url = (port: number, db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;

  let stopped = false;
  const running = new Set<string>();
  const stopSync = () => {
    for (const data of running) pgCommandSync("pg_ctl", ["-D", data, "stop", "-m", "immediate"]);
    running.clear();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stopSync);

  const start = async (data: string, port: number, log: string) => {
    await pgCommand("pg_ctl", ["-D", data, "-o", serverOptions(port), "-l", log, "-w", "-t", "30", "start"]);
    running.add(data);
  };
  const stopServer = async (data: string) => {
    if (!running.has(data)) return;
    await pgCommand("pg_ctl", ["-D", data, "stop", "-m", "fast", "-w", "-t", "30"]);
    running.delete(data);
  };

  const pair: ReplicaPair = {
    primaryUrl: url(primaryPort, database),
    replicaUrl: url(replicaPort, database),
    dir,
    stopReplica: () => stopServer(replicaDir),
    async startReplica() {
      await start(replicaDir, replicaPort, path.join(dir, "replica.log"));
      await waitUntil(async () => (await query(pair.replicaUrl, "SELECT 1")).rowCount === 1, 30_000, "the replica to accept connections");
    },
    async pauseReplay() {
      await query(pair.replicaUrl, "SELECT pg_wal_replay_pause()");
      await waitUntil(
        async () => (await query(pair.replicaUrl, "SELECT pg_get_wal_replay_pause_state() AS s")).rows[0].s === "paused",
        10_000,
        "replay to pause",
      );
    },
    async resumeReplay() {
      await query(pair.replicaUrl, "SELECT pg_wal_replay_resume()");
    },
    async waitForReplay(timeoutMs = 30_000) {
      const target = (await query(pair.primaryUrl, "SELECT pg_current_wal_insert_lsn()::text AS lsn")).rows[0].lsn as string;
      await waitUntil(
        async () => (await query(pair.replicaUrl, `SELECT pg_last_wal_replay_lsn() >= '${target}'::pg_lsn AS done`)).rows[0].done === true,
        timeoutMs,
        `the replica to replay up to ${target}`,
      );
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off("exit", stopSync);
      await stopServer(replicaDir).catch(() => undefined);
      await stopServer(primaryDir).catch(() => undefined);
      stopSync();
    },
  };

  try {
    await pgCommand("initdb", ["-D", primaryDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
    // Replication connections are matched only by a `replication` line (`all` does not cover them).
    appendFileSync(path.join(primaryDir, "pg_hba.conf"), "\nhost replication all 127.0.0.1/32 trust\n");
    await start(primaryDir, primaryPort, path.join(dir, "primary.log"));
    await query(url(primaryPort, "postgres"), `CREATE DATABASE "${database}"`);
    if (options.prepare) await options.prepare(pair.primaryUrl);
    await pgCommand("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      replicaDir,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
    ]);
    await pair.startReplica();
    const recovery = (await query(pair.replicaUrl, "SELECT pg_is_in_recovery() AS r")).rows[0].r;
    if (recovery !== true) throw new Error("the replica is not in recovery: it would accept writes");
    return pair;
  } catch (error) {
    await pair.stop();
    throw error;
  }
}
