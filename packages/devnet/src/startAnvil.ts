import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { createRpcClient } from "@agent-ledger/runtime";
import { DEVNET_CHAIN_ID } from "./constants.ts";
import { AnvilStartError } from "./errors.ts";
import { resolveAnvilBinary } from "./resolveAnvilBinary.ts";

/** The watchdog's first stderr line: anvil's own pid. */
const PID_LINE = "anvil-watchdog-pid=";

export type StartAnvilOptions = {
  /** 0 (default) lets anvil pick a free port. */
  port?: number;
  hardfork?: "T4";
  /** Seconds per block; omit for automine (one block per tx). Use it for bulk loads. */
  blockTime?: number;
  /** Receives every stdout/stderr line of anvil. */
  log?: (line: string) => void;
  /** How long to wait for `eth_chainId` to answer (default 15 s). */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL (default 3 s). */
  stopGraceMs?: number;
  /** Binary to run (default: resolveAnvilBinary()). */
  binary?: string;
  /** Extra CLI arguments. */
  args?: string[];
};

export type AnvilInstance = { url: string; port: number; pid: number; stop(): Promise<void> };

/**
 * The watchdog (`node -e`, argv: parent pid, anvil binary, anvil args): runs anvil as its child with the same stdio,
 * prints anvil's pid as its first stderr line, forwards SIGTERM/SIGINT/SIGHUP, polls the parent every 250 ms and kills
 * anvil when the parent no longer exists, and exits with anvil.
 */
const WATCHDOG = `
const [parent, bin, ...args] = process.argv.slice(1);
const child = require('node:child_process').spawn(bin, args, { stdio: 'inherit' });
child.on('error', (e) => { process.stderr.write('anvil watchdog: ' + e.message + '\\n'); process.exit(127); });
if (child.pid) process.stderr.write('${PID_LINE}' + child.pid + '\\n');
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
setInterval(() => { try { process.kill(Number(parent), 0); } catch { child.kill('SIGKILL'); } }, 250);
`;

const live = new Set<ChildProcess>();
let hooksInstalled = false;

/** The watchdog and anvil (its own process group, `detached`): a SIGKILL of the watchdog alone would orphan anvil. */
function killGroup(c: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (c.pid) process.kill(-c.pid, signal);
  } catch {
    c.kill(signal);
  }
}

/** Kills live anvil children when the parent exits, or on a signal nobody else handles. */
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", () => {
    for (const c of live) killGroup(c, "SIGKILL");
  });
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = () => {
      if (process.listenerCount(sig) > 1) return; // the application handles it (e.g. main.ts stops cleanly)
      for (const c of live) killGroup(c, "SIGKILL");
      process.off(sig, handler);
      process.kill(process.pid, sig); // keep the default "die by signal" semantics
    };
    process.on(sig, handler);
  }
}

/** Spawns `anvil --network tempo --hardfork T4` and resolves once `eth_chainId` answers 31337. */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const { port = 0, hardfork = "T4", blockTime, log, readyTimeoutMs = 15_000, stopGraceMs = 3_000 } = options;
  const binary = options.binary ?? resolveAnvilBinary();
  const args = ["--network", "tempo", "--hardfork", hardfork, "--host", "127.0.0.1", "--port", String(port)];
  if (blockTime !== undefined) args.push("--block-time", String(blockTime));
  args.push(...(options.args ?? []));

  installExitHooks();
  // Own process group: a terminal Ctrl-C reaches only the parent, which can stop its users first and then
  // anvil. The exit/signal hooks above kill the group when the parent exits; a parent killed outright (SIGKILL, a
  // test runner's worker torn down) runs no hook, so anvil runs under a watchdog that kills it once the parent is gone.
  const child = spawn(process.execPath, ["-e", WATCHDOG, String(process.pid), binary, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    env: { ...process.env, NODE_OPTIONS: "" }, // the watchdog is plain CommonJS: no loaders
  });
  live.add(child);
  // A running devnet does not keep the parent alive by itself; the exit hook kills it when the parent exits.
  child.unref();
  for (const s of [child.stdout, child.stderr]) (s as unknown as { unref?: () => void }).unref?.();
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  }).then(() => {
    live.delete(child);
  });

  // Always drain both pipes (a full pipe would block anvil) and look for the listening port.
  const tail: string[] = [];
  let listenPort: number | undefined;
  let anvilPid: number | undefined;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (line.startsWith(PID_LINE)) {
        anvilPid = Number(line.slice(PID_LINE.length));
        return;
      }
      const m = /Listening on [^\s:]+:(\d+)/.exec(line);
      if (m) listenPort = Number(m[1]);
      log?.(line);
    });
  }

  let spawnError: Error | undefined;
  child.once("error", (e) => (spawnError = e));
  let dead = false;
  void exited.then(() => (dead = true));

  const stop = async (): Promise<void> => {
    if (!dead) {
      child.kill("SIGTERM"); // the watchdog passes it to anvil and exits with it
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), stopGraceMs);
      await exited;
      clearTimeout(timer);
    }
  };

  const fail = async (why: string): Promise<never> => {
    await stop();
    throw new AnvilStartError(`anvil (${binary}) ${why}${tail.length ? `; last output: ${tail.slice(-5).join(" | ")}` : ""}`);
  };

  const deadline = Date.now() + readyTimeoutMs;
  while (true) {
    if (spawnError) return fail(`failed to spawn: ${spawnError.message}`);
    if (dead) return fail(`exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    if (Date.now() > deadline) return fail(`did not answer eth_chainId within ${readyTimeoutMs}ms`);
    if (listenPort !== undefined) {
      const url = `http://127.0.0.1:${listenPort}`;
      const chainId = await rpcChainId(url);
      if (chainId !== undefined) {
        if (chainId !== DEVNET_CHAIN_ID) return fail(`answered chain id ${chainId}, expected ${DEVNET_CHAIN_ID}`);
        return { url, port: listenPort, pid: anvilPid ?? child.pid!, stop };
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function rpcChainId(url: string): Promise<number | undefined> {
  try {
    const id = await createRpcClient(url, { timeoutMs: 1_000 }).request<string | undefined>("eth_chainId", []);
    return id ? Number(BigInt(id)) : undefined;
  } catch {
    return undefined;
  }
}
