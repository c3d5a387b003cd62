import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** A service process (a package's `src/main.ts`, run the way the other process tests run them) and its JSON log lines. */
export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first log line with this `msg` (optionally also matching `where`). */
  line(msg: string, where?: (l: Record<string, unknown>) => boolean): Record<string, unknown> | undefined;
}

/**
 * Spawns `node --import tsx <main>` from the repository root with `env` on top of this process's environment (which
 * carries NODE_OPTIONS=--conditions=agent-ledger-source from vitest.config.ts, so workspace packages load their
 * sources). Stdout is parsed as pino JSON lines.
 */
export function spawnService(name: string, main: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, main)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split("\n");
    rest = parts.pop() ?? "";
    for (const p of parts) {
      if (!p.trim()) continue;
      try {
        lines.push(JSON.parse(p));
      } catch {
        lines.push({ msg: p });
      }
    }
  });
  child.stderr!.on("data", (c: Buffer) => stderr.push(c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    name,
    child,
    lines,
    stderr,
    exited,
    line: (msg, where) => lines.find((l) => l.msg === msg && (!where || where(l))),
  };
}

/** Polls `check` every 50 ms until it returns something truthy; the error names `what`. */
export async function until<T>(check: () => T | Promise<T>, timeoutMs: number, what: string): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
