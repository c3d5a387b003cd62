// `npm start`: the whole system on local defaults — PostgreSQL, Redis, a Tempo devnet with demo traffic,
// migrations, registry, indexer, worker and API. Ctrl-C stops everything.
// Set TEMPO_RPC_URL to follow a real Tempo node instead (no devnet, no demo traffic, registry/mainnet.json).
import { spawn, type ChildProcess } from "node:child_process";
import { ensureDatabase, migrateDeploy } from "@agent-ledger/db";
import { ROLLUP_TABLES } from "@agent-ledger/indexer";
import pg from "pg";
import { loadOrCreateDevMasterKey, onPath, postgresAnswers, redisAnswers, spawnTs, waitForExit } from "./lib.ts";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger";
let REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const API_PORT = process.env.API_PORT ?? "3000";
const DEVNET_PORT = process.env.DEVNET_PORT ?? "8545";
const externalRpc = process.env.TEMPO_RPC_URL;
const RPC_URL = externalRpc ?? `http://127.0.0.1:${DEVNET_PORT}`;
const REGISTRY_FILE = process.env.REGISTRY_FILE ?? (externalRpc ? "registry/mainnet.json" : "registry/demo.json");

const children: { name: string; child: ChildProcess }[] = [];
/** anvil's well-known dev account 3: funded on every devnet, public knowledge, never used beyond the devnet. */
const DEVNET_SPONSOR_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
let shuttingDown = false;

function fail(message: string): never {
  console.error(`\n✖ ${message}\n`);
  process.exit(1);
}

async function shutdown(code = 0) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log("\nstopping…");
  // Reverse start order: API and worker first, the indexer after its current batch, the devnet last.
  for (const { name, child } of [...children].reverse()) {
    child.kill("SIGTERM");
    await waitForExit(child, name === "devnet" ? 8_000 : 15_000);
  }
  console.log("stopped.");
  process.exit(code);
}
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());

async function waitForRpc(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  fail(`the Tempo RPC at ${url} did not answer within ${timeoutMs / 1000}s`);
}

// 1. PostgreSQL
if (!(await postgresAnswers(DATABASE_URL))) {
  fail(`PostgreSQL is not reachable at ${DATABASE_URL.replace(/\/\/[^@]*@/, "//…@")}.
  Start it, or install it (Debian: apt-get install postgresql; macOS: brew install postgresql@16),
  or point DATABASE_URL at a server you have.`);
}
if (await ensureDatabase(DATABASE_URL)) console.log(`created database ${new URL(DATABASE_URL).pathname.slice(1)}`);
await migrateDeploy(DATABASE_URL);

// 2. Redis: REDIS_URL, else a redis-server of our own for this session.
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
  for (let i = 0; i < 50 && !(await redisAnswers(REDIS_URL)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await redisAnswers(REDIS_URL))) fail("the redis-server started for this session did not answer");
  console.log(`started redis-server for this session on ${REDIS_URL}`);
}

// 3. Chain: our devnet with demo traffic, or the node in TEMPO_RPC_URL.
if (!externalRpc) {
  // The devnet starts from genesis every time, so the ledger derived from the previous one is stale.
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  // Rollups too: they are sums over agent_events and would otherwise keep counting the previous devnet's payments.
  await client.query(`TRUNCATE raw_logs, agent_events, indexer_checkpoints, webhook_deliveries, event_cursors, ${ROLLUP_TABLES.join(", ")} RESTART IDENTITY`);
  await client.end();
  console.log("devnet mode: cleared the chain-derived tables of the previous devnet");
  children.push({ name: "devnet", child: spawnTs("devnet", "packages/devnet/src/main.ts", { DEVNET_PORT }) });
}
await waitForRpc(RPC_URL, 30_000);

// 4. Secrets: the master key sealing webhook secrets and agent keys. Never a built-in default: take
// SECRETS_MASTER_KEY, else generate one for this checkout once (.agent-ledger/, git-ignored, mode 0600).
const SECRETS_MASTER_KEY = process.env.SECRETS_MASTER_KEY ?? loadOrCreateDevMasterKey();

// 5. The web pages (explorer, GraphiQL, approval page): built once here, served by the API (docs/web.md).
{
  const t0 = Date.now();
  const { buildWebAssets } = await import("../packages/web/scripts/build.ts");
  await buildWebAssets();
  console.log(`built the web pages in ${Date.now() - t0} ms`);
}

// 6. Services.
const common = { DATABASE_URL, REDIS_URL, TEMPO_RPC_URL: RPC_URL, REGISTRY_FILE, SECRETS_MASTER_KEY };
children.push({ name: "indexer", child: spawnTs("indexer", "packages/indexer/src/main.ts", common) });
children.push({ name: "worker", child: spawnTs("worker", "packages/worker/src/main.ts", common) });
children.push({
  name: "api",
  child: spawnTs("api", "packages/api/src/main.ts", {
    ...common,
    API_PORT,
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://localhost:${API_PORT}`,
    // The live feed is opt-in in deployments (spec); the local system shows it.
    NEXT_PUBLIC_LIVE_FEED: process.env.NEXT_PUBLIC_LIVE_FEED ?? "1",
    // Devnet only: dev account 3 sponsors gas. With a real RPC, SPONSOR_PRIVATE_KEY must be given.
    ...(externalRpc ? {} : { SPONSOR_PRIVATE_KEY: process.env.SPONSOR_PRIVATE_KEY ?? DEVNET_SPONSOR_KEY }),
  }),
});

for (const { name, child } of children) {
  child.on("exit", (code, signal) => {
    if (shuttingDown) return;
    console.error(`\n✖ ${name} exited (${signal ?? `code ${code}`}); stopping the rest`);
    void shutdown(1);
  });
}

console.log(`
Agent Ledger is starting:
  Explorer   http://127.0.0.1:${API_PORT}/   (live dashboard; GraphiQL at /graphql)
  API        http://127.0.0.1:${API_PORT}/api   (health: /healthz, readiness: /readyz)
  Tempo RPC  ${RPC_URL}${externalRpc ? "" : "   (local devnet, demo traffic on)"}
  Database   ${DATABASE_URL.replace(/\/\/[^@]*@/, "//…@")}
  Redis      ${REDIS_URL}
  Registry   ${REGISTRY_FILE}
Press Ctrl-C to stop.
`);
