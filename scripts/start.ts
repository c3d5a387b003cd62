// `npm start [-- --verbose]`: the whole system on local defaults — PostgreSQL, Redis, a Tempo devnet with demo traffic,
// migrations, registry, indexer, worker and API, each service running with `node` on the build output. Ctrl-C stops
// everything. Set TEMPO_RPC_URL to follow a real Tempo node instead (no devnet, no demo traffic; the indexer loads the
// registry of the node's chain: registry/mainnet.json for 4217, registry/testnet.json for 42431, unless REGISTRY_FILE).
//
// Build first, when needed: `tsc -b` decides (its incremental check compares each project's sources with its
// .tsbuildinfo; an up-to-date tree costs about a second), then the web pages are bundled (docs/web.md).
//
// Output: one "✓" line per part as it becomes ready, then one ready block with the URLs, printed once, when the
// explorer, GraphQL, REST, MCP and the RPC all answer and /readyz says the indexer has caught up. Service logs at
// LOG_LEVEL (default info; `--verbose` = debug): per-transaction devnet lines and per-batch indexer lines are debug.
// On a terminal, service lines are summarized (`indexer │ msg key=value`), their info lines stay out until the ready block,
// then successful API request lines do (quietOnTerminal; --verbose shows all), and a backfill shows one progress line
// (blocks done / head, logs/s, ETA); otherwise (piped, CI, a log collector) service lines pass through as JSON.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createRpcClient } from "@agent-ledger/runtime";
import { ensureDatabase, migrateDeploy } from "@agent-ledger/db";
import { ROLLUP_TABLES } from "@agent-ledger/indexer";
import pg from "pg";
import { formatBackfillProgress, type BackfillSample } from "./backfillProgress.ts";
import { startDevnetWalletFaucet, type DevnetWalletFaucet } from "./devnetWalletFaucet.ts";
import {
  loadOrCreateDevMasterKey,
  onPath,
  parseLogLine,
  postgresAnswers,
  quietOnTerminal,
  redisAnswers,
  ROOT,
  spawnService,
  summarize,
  waitForExit,
} from "./lib.ts";

const verbose = process.argv.includes("--verbose") || process.argv.includes("-v");
const LOG_LEVEL = verbose ? "debug" : process.env.LOG_LEVEL || "info";
const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger";
let REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const API_PORT = process.env.API_PORT ?? "3000";
const DEVNET_PORT = process.env.DEVNET_PORT ?? "8545";
const externalRpc = process.env.TEMPO_RPC_URL;
const RPC_URL = externalRpc ?? `http://127.0.0.1:${DEVNET_PORT}`;
/** Set: the registry every run loads. Unset: the indexer loads its chain's (4217 mainnet, 42431 testnet, 31337 the demo's). */
const REGISTRY_FILE = process.env.REGISTRY_FILE || undefined;
const API = `http://127.0.0.1:${API_PORT}`;
/** Where people open the pages: a passkey belongs to this host (WEBAUTHN_RP_ID = localhost), never to 127.0.0.1. */
const PUBLIC_BASE_URL = (process.env.PUBLIC_BASE_URL ?? `http://localhost:${API_PORT}`).replace(/\/+$/, "");
const TTY = Boolean(process.stdout.isTTY);
const redact = (url: string) => url.replace(/\/\/[^@]*@/, "//…@");

const children: { name: string; child: ChildProcess }[] = [];
/** anvil's well-known dev account 3: funded on every devnet, public knowledge, never used beyond the devnet. */
const DEVNET_SPONSOR_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
let shuttingDown = false;
/** Set once the ready block is printed (what a terminal shows changes then: quietOnTerminal). */
let systemReady = false;

// ── output ──────────────────────────────────────────────────────────────────────────────────────────────────────
let progressShown = false;
function clearProgress() {
  if (progressShown) process.stdout.write("\r\x1b[2K");
  progressShown = false;
}
function say(text: string) {
  clearProgress();
  process.stdout.write(`${text}\n`);
}
const ok = (part: string, detail: string) => say(`${TTY ? "\x1b[32m✓\x1b[0m" : "✓"} ${part.padEnd(10)} ${detail}`);
function progress(text: string) {
  if (!TTY) return;
  process.stdout.write(`\r\x1b[2K${text}`);
  progressShown = true;
}
const COLORS: Record<string, number> = { api: 36, worker: 35, indexer: 33, devnet: 32 };
const RANK: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
/** Devnet events that are one line per transaction: shown at debug only. */
const DEVNET_DEBUG_EVENTS = new Set([
  "tx",
  "voucher",
  "session_closed",
  "session_empty",
  "adversarial_tx",
  "tick_skipped",
  "funded",
  "escrow_approved",
  "anvil",
]);

function fail(message: string): never {
  clearProgress();
  console.error(`\n✖ ${message}\n`);
  process.exit(1);
}

let walletFaucet: DevnetWalletFaucet | undefined;
async function shutdown(code = 0) {
  if (shuttingDown) return;
  shuttingDown = true;
  say("\nstopping…");
  await walletFaucet?.stop();
  // Reverse start order: API and worker first, the indexer after its current batch, the devnet last.
  for (const { name, child } of [...children].reverse()) {
    child.kill("SIGTERM");
    await waitForExit(child, name === "devnet" ? 8_000 : 15_000);
  }
  say("stopped.");
  process.exit(code);
}
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
// Whatever ends this process (fail(), an exception, shutdown's own exit), no service outlives it: a service still
// running is killed outright (the devnet's anvil runs under a watchdog that follows its parent, packages/devnet startAnvil).
process.on("exit", () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts `file` (build output) as service `name`; `watch` sees every parsed line (readiness signals). */
function startService(name: string, file: string, env: NodeJS.ProcessEnv, watch?: (msg: string, fields: Record<string, unknown>) => void) {
  const tag = TTY ? `\x1b[${COLORS[name] ?? 37}m${name.padEnd(7)}\x1b[0m │ ` : "";
  const child = spawnService(file, { LOG_LEVEL, ...env }, (line) => {
    const parsed = parseLogLine(line);
    if (parsed) watch?.(parsed.msg, parsed.fields);
    // devnet writes its own event lines (no levels): per-transaction ones count as debug
    const level =
      name === "devnet" && parsed ? (DEVNET_DEBUG_EVENTS.has(parsed.msg) ? "debug" : parsed.msg === "fatal" ? "error" : "info") : (parsed?.level ?? "info");
    if ((RANK[level] ?? 30) < (RANK[LOG_LEVEL] ?? 30)) return;
    if (!TTY) {
      clearProgress();
      process.stdout.write(`${line}\n`);
    } else if (!quietOnTerminal(name, level, parsed, { logLevel: LOG_LEVEL, ready: systemReady })) say(`${tag}${summarize(line)}`);
  });
  children.push({ name, child });
  child.on("exit", (code, signal) => {
    if (shuttingDown) return;
    say(`\n✖ ${name} exited (${signal ?? `code ${code}`}); stopping the rest`);
    void shutdown(1);
  });
  return child;
}

/** One JSON-RPC call (the project's client, runtime createRpcClient), null for any failure: the checks below only ask "does it answer?". */
async function rpc<T>(url: string, method: string): Promise<T | null> {
  try {
    return (await createRpcClient(url, { timeoutMs: 3_000 }).request<T>(method, [])) ?? null;
  } catch {
    return null;
  }
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (shuttingDown) await new Promise(() => {});
    if (Date.now() > deadline) fail(`${what} within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

// ── 1. PostgreSQL ──────────────────────────────────────────────────────────────────────────────────────────────
progress("  checking PostgreSQL, applying migrations…");
if (!(await postgresAnswers(DATABASE_URL))) {
  fail(`PostgreSQL is not reachable at ${redact(DATABASE_URL)}.
  Start it, or install it (Debian: apt-get install postgresql; macOS: brew install postgresql@16),
  or point DATABASE_URL at a server you have.`);
}
const created = await ensureDatabase(DATABASE_URL);
await migrateDeploy(DATABASE_URL, { quiet: true });
ok("PostgreSQL", `${redact(DATABASE_URL)}${created ? " (database created)" : ""}, migrations applied`);

// ── 2. Redis: REDIS_URL, else a redis-server of our own for this session ──────────────────────────────────────
if (!(await redisAnswers(REDIS_URL))) {
  if (process.env.REDIS_URL) fail(`Redis is not reachable at REDIS_URL=${REDIS_URL}.`);
  if (!onPath("redis-server")) {
    fail(`Redis is not running on 127.0.0.1:6379 and redis-server is not on PATH.
  Install it (Debian: apt-get install redis-server; macOS: brew install redis), or set REDIS_URL.`);
  }
  const port = 6390;
  const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  children.push({ name: "redis", child: redis });
  REDIS_URL = `redis://127.0.0.1:${port}`;
  await until("the redis-server started for this session did not answer", 5_000, () => redisAnswers(REDIS_URL), 100);
  ok("Redis", `${REDIS_URL} (started for this session)`);
} else ok("Redis", REDIS_URL);

// ── 3. Build: tsc -b (incremental) and the web pages ───────────────────────────────────────────────────────────
{
  const t0 = Date.now();
  progress("  building (tsc -b)…");
  const tsc = spawn(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.build.json"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let out = "";
  tsc.stdout.on("data", (d) => (out += d));
  tsc.stderr.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((r) => tsc.on("exit", r));
  if (code !== 0) fail(`the build failed (tsc -b tsconfig.build.json):\n${out}`);
  const tscMs = Date.now() - t0;
  progress("  building the web pages…");
  const { buildWebAssets } = await import("../packages/web/scripts/build.ts");
  await buildWebAssets();
  ok(
    "build",
    `packages/*/dist ${tscMs < 5_000 ? "up to date" : `compiled in ${(tscMs / 1000).toFixed(1)} s`}, web pages in ${((Date.now() - t0 - tscMs) / 1000).toFixed(1)} s`,
  );
}

// ── 4. Chain: our devnet with demo traffic, or the node in TEMPO_RPC_URL ───────────────────────────────────────
if (!externalRpc) {
  // The devnet starts from genesis every time, so the ledger derived from the previous one is stale.
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  // Rollups too: they are sums over agent_events and would otherwise keep counting the previous devnet's payments.
  // And the rollups' version claim: empty rollups hold no version, so METHODOLOGY_VERSION may differ from the last run's.
  await client.query(
    `TRUNCATE raw_logs, agent_events, indexer_checkpoints, webhook_deliveries, event_cursors, rollups_version, ${ROLLUP_TABLES.join(", ")} RESTART IDENTITY`,
  );
  await client.end();
  let devnetReady = false;
  let txPerSecond: unknown = 0;
  let mppRealms = 0;
  startService("devnet", "packages/devnet/dist/main.js", { DEVNET_PORT }, (msg, fields) => {
    if (msg === "mpp_servers" && Array.isArray(fields.servers))
      mppRealms = (fields.servers as { realms?: unknown[] }[]).reduce((n, s) => n + (s.realms?.length ?? 0), 0);
    if (msg === "ready") {
      devnetReady = true;
      txPerSecond = fields.txPerSecond;
    }
  });
  progress("  starting the devnet (anvil, contracts, demo accounts, mppx services)…");
  await until("the devnet did not become ready", 120_000, () => devnetReady);
  const through = mppRealms ? ` through ${mppRealms} MPP realms (mppx servers on 127.0.0.1)` : "";
  ok("devnet", `${RPC_URL}, chain 31337, demo traffic ${txPerSecond} tx/s${through} (the previous devnet's ledger rows were cleared)`);
} else {
  await until(`the Tempo RPC at ${RPC_URL} did not answer`, 30_000, async () => (await rpc(RPC_URL, "eth_chainId")) !== null, 500);
  ok("RPC", RPC_URL);
}

// ── 5. Secrets: SECRETS_MASTER_KEY, else one generated for this checkout once (.agent-ledger/, mode 0600) ────────
const SECRETS_MASTER_KEY = process.env.SECRETS_MASTER_KEY ?? loadOrCreateDevMasterKey();

// ── 6. Services ────────────────────────────────────────────────────────────────────────────────────────────────
const common = { DATABASE_URL, REDIS_URL, TEMPO_RPC_URL: RPC_URL, ...(REGISTRY_FILE ? { REGISTRY_FILE } : {}), SECRETS_MASTER_KEY };
let workerReady = false;
// The indexer starts once the worker is ready: on a fresh devnet the webhook dispatch cursor was just cleared, and a
// first-ever cursor starts "from now on" (docs/webhooks.md) at the worker's first pass, which "ready" waits for, so
// the new chain's first rows reach the existing subscriptions instead of being passed over.
startService("worker", "packages/worker/dist/main.js", common, (msg) => {
  if (msg !== "webhook worker ready" || workerReady) return;
  workerReady = true;
  startService("indexer", "packages/indexer/dist/main.js", common);
});
startService("api", "packages/api/dist/main.js", {
  ...common,
  API_PORT,
  PUBLIC_BASE_URL,
  // The live feed is opt-in in deployments (spec); the local system shows it.
  NEXT_PUBLIC_LIVE_FEED: process.env.NEXT_PUBLIC_LIVE_FEED ?? "1",
  // Devnet only: dev account 3 sponsors gas. With a real RPC, SPONSOR_PRIVATE_KEY must be given.
  ...(externalRpc ? {} : { SPONSOR_PRIVATE_KEY: process.env.SPONSOR_PRIVATE_KEY ?? DEVNET_SPONSOR_KEY }),
});

// The indexer: ready when its checkpoint is within CAUGHT_UP_BLOCKS of the head. From its start on, on a terminal, one
// line of backfill progress redrawn every second under the ✓ lines (formatBackfillProgress: blocks done / head,
// logs/s from the rows PostgreSQL counted into raw_logs, ETA); piped, nothing (the indexer's own JSON lines say it).
const indexerCaughtUp = (async () => {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const sample = async () => {
    const [cp, ins, head] = await Promise.all([
      db.query<{ last: string | null }>("SELECT max(last_block)::text AS last FROM indexer_checkpoints"),
      db.query<{ n: string | null }>("SELECT n_tup_ins::text AS n FROM pg_stat_user_tables WHERE relname = 'raw_logs'"),
      rpc<string>(RPC_URL, "eth_blockNumber"),
    ]);
    const last = cp.rows[0]?.last;
    return last && head ? { block: Number(last), head: Number(BigInt(head)), logs: Number(ins.rows[0]?.n ?? 0), at: Date.now() } : null;
  };
  const deadline = Date.now() + 30 * 60_000;
  let first: BackfillSample | undefined;
  for (;;) {
    if (shuttingDown) await new Promise(() => {});
    const s = await sample().catch(() => null);
    if (s) {
      first ??= s;
      const line = formatBackfillProgress(first, s, s.at);
      if (line === null) {
        await db.end();
        return s;
      }
      progress(line);
    }
    if (Date.now() > deadline) fail("the indexer did not catch up with the head within 1800 s");
    await new Promise((r) => setTimeout(r, 1_000));
  }
})();

const answers = async (url: string, init?: RequestInit, accept = (s: number) => s === 200) => {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return accept(res.status);
  } catch {
    return false;
  }
};

await until("the API did not answer /healthz", 120_000, () => answers(`${API}/healthz`));
ok("api", `${API} answers`);
await until("the worker did not report ready", 120_000, () => workerReady);
ok("worker", "webhook deliveries running");

// Local devnet only: every passkey account gets 1,000 pathUSD once per run, so an agent paired here can pay.
if (!externalRpc) {
  let lastError = "";
  walletFaucet = startDevnetWalletFaucet({
    databaseUrl: DATABASE_URL,
    rpcUrl: RPC_URL,
    onFunded: (address) => say(`  devnet: the passkey account ${address} got 1,000 pathUSD to spend (local devnet only)`),
    onError: (e) => {
      const message = e instanceof Error ? e.message.split("\n")[0]! : String(e);
      if (message !== lastError) say(`  devnet: could not fund a passkey account: ${message}`);
      lastError = message;
    },
  });
}

{
  const done = await indexerCaughtUp;
  ok("indexer", `at block ${done.block} (head ${done.head}), following`);
}

// The ready block: only when every surface answers.
const mcpInit = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "npm-start", version: "1" } },
};
const surfaces: [string, () => Promise<boolean>][] = [
  ["explorer", () => answers(`${API}/`)],
  ["GraphQL", () => answers(`${API}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"query":"{ __typename }"}' })],
  ["REST", () => answers(`${API}/api/dashboard`)],
  [
    "MCP",
    () =>
      answers(`${API}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(mcpInit),
      }),
  ],
  ["RPC", async () => (await rpc(RPC_URL, "eth_chainId")) !== null],
  ["readiness", () => answers(`${API}/readyz`)],
];
await until(
  "the system did not answer on every surface (explorer, GraphQL, REST, MCP, RPC, /readyz)",
  120_000,
  async () => {
    for (const [, check] of surfaces) if (!(await check())) return false;
    return true;
  },
  500,
);

say(`
Agent Ledger is ready
  Explorer   ${PUBLIC_BASE_URL}/
  Wallet     ${PUBLIC_BASE_URL}/wallet   (owner console, and /webhooks: sign in with your passkey at this address)
  GraphQL    ${API}/graphql   (GraphiQL in a browser)
  API        ${API}/api/dashboard   (REST; every path: /api/openapi.json; health /healthz, readiness /readyz)
  MCP        ${API}/mcp   (Streamable HTTP; stdio: agent-ledger mcp)
  Tempo RPC  ${RPC_URL}${externalRpc ? "" : "   (local devnet, demo traffic on)"}
  Logs       ${LOG_LEVEL}${verbose ? "" : "   (npm start -- --verbose: every service line, transaction, batch and request)"}
Press Ctrl-C to stop.
`);
systemReady = true;
