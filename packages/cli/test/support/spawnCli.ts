import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

// Runs the real `agent-ledger` bin (node → tsx → src/main.ts) as a child process, the way a user or a script does.

export const CLI_BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when `pattern` shows up on stdout or stderr (rejects after `timeoutMs` or when the process ends first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<CliRun>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts the CLI. `env` is added to a clean environment (PATH/HOME kept); no browser is ever opened. */
export function spawnCli(args: string[], options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {}): CliProcess {
  const env: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "TMPDIR", "LANG", "NODE_OPTIONS"]) if (process.env[k]) env[k] = process.env[k]!;
  for (const [k, v] of Object.entries({ AGENT_LEDGER_NO_BROWSER: "1", ...options.env })) if (v !== undefined) env[k] = v;
  const child = spawn(process.execPath, [CLI_BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding("utf8").on("data", (d: string) => ((out += d), waiters.forEach((w) => w())));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => ((err += d), waiters.forEach((w) => w())));
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const exited = new Promise<CliRun>((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      waiters.forEach((w) => w());
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: (signal = "SIGTERM") => void child.kill(signal),
    waitFor(pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern) ?? err.match(pattern);
          if (m) return finish(() => resolve(m));
          if (done) return finish(() => reject(new Error(`agent-ledger exited before printing ${pattern}\nstdout: ${out}\nstderr: ${err}`)));
        };
        const t = setTimeout(() => finish(() => reject(new Error(`timed out after ${ms} ms waiting for ${pattern}\nstdout: ${out}\nstderr: ${err}`))), ms);
        const finish = (f: () => void) => {
          clearTimeout(t);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Runs the CLI to completion. */
export function runCli(args: string[], options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<CliRun> {
  return spawnCli(args, options).exited;
}
