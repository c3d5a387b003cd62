import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";

export const ROOT = path.resolve(import.meta.dirname, "..");

/** True when something answers Redis' PING at `url`. */
export function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || "127.0.0.1", port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}

/** True when PostgreSQL accepts a connection (to the `postgres` database) at `url`'s server. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/**
 * Runs a built service (`node <file>`, the build output of `npm run build`) in a child process. Each complete output
 * line goes to `onLine` (the service's JSON log line, or devnet's JSON event line).
 */
export function spawnService(file: string, env: NodeJS.ProcessEnv, onLine: (line: string) => void): ChildProcess {
  const child = spawn(process.execPath, [path.join(ROOT, file)], {
    cwd: ROOT,
    // NODE_OPTIONS of the parent (npm start runs under tsx with --conditions=agent-ledger-source) must not reach the services.
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream?.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) onLine(line);
    });
  }
  return child;
}

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** A parsed log line: pino JSON (numeric level) or devnet's event JSON; null for a line that is not JSON. */
export function parseLogLine(line: string): { level: string; msg: string; fields: Record<string, unknown> } | null {
  try {
    const { level, msg, event, time, ts, service, name, pid, hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
    void time;
    void ts;
    void service;
    void name;
    void pid;
    void hostname;
    const lvl = typeof level === "number" ? (LEVELS[level] ?? "info") : typeof level === "string" ? level : "info";
    return { level: lvl, msg: String(msg ?? event ?? ""), fields: rest };
  } catch {
    return null;
  }
}

/** One readable line out of a log line (falls back to the raw line). */
export function summarize(line: string): string {
  const parsed = parseLogLine(line);
  if (!parsed) return line;
  const fields = Object.entries(parsed.fields)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(" ");
  return `${parsed.level === "info" ? "" : `[${parsed.level}] `}${parsed.msg} ${fields}`.trim();
}

/** Level name → pino's number (`info` → 30). */
export const LEVEL_RANK: Record<string, number> = Object.fromEntries(Object.entries(LEVELS).map(([n, name]) => [name, Number(n)]));

/**
 * Whether `npm start` keeps a service line off a terminal: at the default level the ✓ lines say what started, so the
 * services' own info lines stay out until the ready block (`ready`), and after it so do the API's lines for
 * successful requests (every probe, click and poll). Warnings, errors and lines that are not JSON (a crash's stack)
 * always show; at `debug` (`--verbose`) every line does.
 */
export function quietOnTerminal(service: string, level: string, parsed: ReturnType<typeof parseLogLine>, state: { logLevel: string; ready: boolean }): boolean {
  const rank = (name: string) => LEVEL_RANK[name] ?? 30;
  if (!parsed || rank(state.logLevel) <= rank("debug") || rank(level) >= rank("warn")) return false;
  if (!state.ready) return true;
  return service === "api" && parsed.msg === "request" && Number(parsed.fields.status) < 400;
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A development master key for this checkout, created once in .agent-ledger/master.key (mode 0600). */
export function loadOrCreateDevMasterKey(): string {
  const dir = path.join(ROOT, ".agent-ledger");
  const file = path.join(dir, "master.key");
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString("base64");
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  console.log(`generated a development master key in ${path.relative(process.cwd(), file)} (set SECRETS_MASTER_KEY in production)`);
  return key;
}
