// `npm run bench:cli`: cold start of the built `agent-ledger` command (packages/cli/dist, `npm run build`).
// Spawns `node dist/agent-ledger.js --help` N times (default 30, BENCH_RUNS) and bare `node -e 0` as many times,
// interleaved so both see the same machine load; prints min / median / p95 wall time of each. Target: --help ≤ 120 ms.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "packages", "cli", "bin", "agent-ledger.js"); // → dist/agent-ledger.js
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
if (!existsSync(BIN)) {
  console.error(`${path.relative(process.cwd(), BIN)} is missing: run npm run build first`);
  process.exit(1);
}

const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }; // no NODE_OPTIONS, no tsx
function time(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: "ignore" });
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
  return performance.now() - t0;
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return `min ${s[0]!.toFixed(0)} ms  median ${at(0.5).toFixed(0)} ms  p95 ${at(0.95).toFixed(0)} ms`;
};

time([BIN, "--help"]); // warm the file system cache once
const cli: number[] = [];
const bare: number[] = [];
for (let i = 0; i < RUNS; i++) {
  cli.push(time([BIN, "--help"]));
  bare.push(time(["-e", "0"]));
}
console.log(`agent-ledger --help  ${stats(cli)}   (${RUNS} runs, target ≤ 120 ms)`);
console.log(`node -e 0            ${stats(bare)}   (the floor on this machine now)`);
