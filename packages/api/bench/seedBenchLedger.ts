// Seeds a dedicated database with a realistic ledger for `npm run bench:api`: a registry of 50 services (incl.
// tempo-gateway-mpp) and 200 agents with labelled providers, fingerprints and counterparties, and N agent_events rows
// over ~90 days — written through the indexer's own path: synthetic chain logs → selectWatchedLogs → matchLogs →
// prepareBatch → writeBatch (raw_logs + rows + rollups + checkpoint in one transaction per range), so rows and rollups
// are exactly what the indexer would write. A finished seed is marked (table bench_seed) and reused.
import { createHash } from "node:crypto";
import {
  FEE_MANAGER_ADDRESS,
  SETTLEMENT_TOPIC,
  TRANSFER_TOPIC,
  TRANSFER_WITH_MEMO_TOPIC,
  matchLogs,
  parseRegistry,
  selectWatchedLogs,
  type RawLog,
} from "@agent-ledger/core";
import { createPgPool, ensureDatabase, loadMatchContext, loadRegistryIntoDb, migrateDeploy, resetDatabase } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import pg from "pg";

export const SEED_STREAM = "bench-api-seed";
export const BENCH_CHAIN_ID = 31337;
export const EXPLORER = "https://explore.tempo.xyz";
export const TOKEN = "0x20c0000000000000000000000000000000000000";
/**
 * The methodology version of every row the API benchmarks write (the seed, the feed's and the explorer's inserts) and
 * the version every app and API process they start is told to serve. The API serves only its configured version
 * (METHODOLOGY_VERSION, default DEFAULT_METHODOLOGY_VERSION = v0.3): an API left at its default next to v0.1 rows
 * streams none of them. v0.1 because the synthetic registry has no token allowlist, without which v0.2 and v0.3 derive
 * no rows; the read and feed paths do not depend on the version beyond that filter.
 */
export const BENCH_METHODOLOGY_VERSION = "v0.1";
const SEED_VERSION = 1;
const TXS_PER_BATCH = 16_000; // ~40k logs per write: seeding has no fetch to overlap, so large writes are fine

const SERVICE_TOPICS = [
  "weather-api",
  "search-api",
  "llm-inference",
  "image-gen",
  "speech-to-text",
  "text-to-speech",
  "translate",
  "maps",
  "news-feed",
  "market-data",
  "web-scraper",
  "code-review",
  "embeddings",
  "vector-db",
  "ocr",
  "pdf-parse",
  "email-send",
  "sms-gateway",
  "geocode",
  "flight-search",
  "hotel-search",
  "currency-fx",
  "stock-quotes",
  "crypto-prices",
  "sports-data",
  "legal-docs",
  "medical-codes",
  "patent-search",
  "academic-search",
  "video-transcode",
  "audio-mix",
  "music-gen",
  "3d-render",
  "captcha-solve",
  "proxy-pool",
  "browser-farm",
  "gpu-rental",
  "storage-blob",
  "dns-lookup",
  "whois",
  "sentiment",
  "summarize",
  "classify",
  "moderation",
  "face-detect",
  "object-detect",
  "time-series",
  "forecast",
  "sandbox-exec",
] as const; // 49 + tempo-gateway-mpp = 50 services
const AGENT_CATEGORIES = ["agent", "research-agent", "trading-agent", "coding-agent", "shopping-agent"] as const;

export interface SeedConfig {
  databaseUrl: string;
  rows: number;
  days: number;
  agents: number;
  /** Drop and re-seed even when a complete seed is there. */
  reseed?: boolean;
  log?: (line: string) => void;
}

export interface SeedInfo {
  rows: number;
  txs: number;
  rawLogs: number;
  lastBlock: string;
  firstTs: string;
  lastTs: string;
  seededAt: string;
  seedSeconds: number;
  gatewayId: string;
  /** A busy ordinary service, its wallet (an address search that finds rows), and a label search text. */
  busyServiceId: string;
  busyServiceWallet: string;
  textQuery: string;
  reused?: boolean;
}

/** 0x + 40 hex derived from a tag (stable across runs). */
export const addressOf = (tag: string) => `0x${createHash("sha256").update(tag).digest("hex").slice(0, 40)}`;
const word = (value: bigint) => `0x${value.toString(16).padStart(64, "0")}`;
const topicOf = (address: string) => `0x${address.slice(2).padStart(64, "0")}`;

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Picks index k of n with probability ∝ 1/(k+1)^s (a few busy, a long tail). */
function zipf(n: number, s: number) {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cumulative[k] = sum += 1 / (k + 1) ** s;
  return (u: number) => {
    const target = u * sum;
    let lo = 0,
      hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function buildBenchRegistry(agentCount: number) {
  const services = [
    { id: "tempo-gateway-mpp", label: "Tempo MPP Gateway", category: "gateway", track_fees: false, wallets: [addressOf("wallet:tempo-gateway-mpp")] },
    ...SERVICE_TOPICS.map((t) => ({
      id: `${t}-mpp`,
      label: `${t
        .split("-")
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join(" ")} (MPP)`,
      category: "service",
      track_fees: false,
      wallets: [addressOf(`wallet:${t}-mpp`)],
    })),
  ];
  const agents = Array.from({ length: agentCount }, (_, i) => {
    const id = `agent-${String(i + 1).padStart(3, "0")}`;
    return {
      id,
      label: `Agent ${String(i + 1).padStart(3, "0")}`,
      category: AGENT_CATEGORIES[i % AGENT_CATEGORIES.length]!,
      track_fees: i % 10 === 0,
      wallets: [addressOf(`wallet:${id}`)],
    };
  });
  const providersA = Array.from({ length: 40 }, (_, i) => addressOf(`provider-a:${i}`));
  const fingerprints = Array.from({ length: 40 }, (_, i) => `0x${createHash("sha256").update(`fp:${i}`).digest("hex").slice(0, 20)}`);
  const counterparties = Array.from({ length: 300 }, (_, i) => addressOf(`counterparty:${i}`));
  const escrow = addressOf("escrow");
  const json = {
    registry_version: 1,
    network: "bench",
    entities: [...services, ...agents],
    address_labels: [
      ...providersA.slice(0, 30).map((address, i) => ({ address, label: `Provider A${i} (escrow)`, category: "provider" })),
      ...counterparties.slice(0, 100).map((address, i) => ({ address, label: `Merchant ${i}`, category: "merchant" })),
    ],
    fingerprint_labels: fingerprints.slice(0, 30).map((fingerprint, i) => ({
      fingerprint,
      label: `Provider B${i} (via gateway)`,
      category: "provider",
      ...(i < 15 ? { provider_address: addressOf(`provider-b:${i}`) } : {}),
    })),
    settlement_contracts: [{ address: escrow, label: "Bench gateway escrow" }],
  };
  return { json, services, agents, providersA, fingerprints, counterparties, escrow };
}

// Transaction shapes and the rows the matcher must derive from each (checked per batch).
const DIRECT = 0,
  GATEWAY_MEMO = 1,
  GATEWAY_SETTLEMENT = 2,
  EXTERNAL = 3,
  AGENT_TO_AGENT = 4;

/** Plans the transactions (shape + sender) until exactly `rows` rows: known up front, so the time span is exact. */
function planTransactions(rows: number, agents: { track_fees: boolean }[]) {
  const rand = prng(1);
  const pickAgent = zipf(agents.length, 0.9);
  const kinds: number[] = [];
  const senders: number[] = [];
  const plainSenders = agents.map((a, i) => (a.track_fees ? -1 : i)).filter((i) => i >= 0);
  let total = 0;
  while (total < rows) {
    const u = rand();
    let kind = u < 0.55 ? DIRECT : u < 0.75 ? GATEWAY_MEMO : u < 0.85 ? GATEWAY_SETTLEMENT : u < 0.95 ? EXTERNAL : AGENT_TO_AGENT;
    let sender = pickAgent(rand());
    let n = (kind === EXTERNAL ? 1 : 2) + (agents[sender]!.track_fees ? 1 : 0);
    if (total + n > rows) {
      kind = EXTERNAL; // one row, from an agent whose fees are not tracked
      sender = plainSenders[0]!;
      n = 1;
    }
    kinds.push(kind);
    senders.push(sender);
    total += n;
  }
  return { kinds: Uint8Array.from(kinds), senders: Uint16Array.from(senders) };
}

async function readMarker(databaseUrl: string, key: string): Promise<SeedInfo | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT info FROM bench_seed WHERE key = $1", [key]).catch(() => ({ rows: [] as { info: SeedInfo }[] }));
    return (rows[0]?.info as SeedInfo | undefined) ?? null;
  } finally {
    await client.end();
  }
}

/** The methodology version of the newest row (null: no rows). */
async function latestRowVersion(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT methodology_version FROM agent_events ORDER BY id DESC LIMIT 1");
    return (rows[0]?.methodology_version as string | undefined) ?? null;
  } finally {
    await client.end();
  }
}

/** Seeds (or reuses) the benchmark ledger: rows of BENCH_METHODOLOGY_VERSION. */
export async function seedBenchLedger(config: SeedConfig): Promise<SeedInfo> {
  const log = config.log ?? console.log;
  const key = `v${SEED_VERSION}:rows=${config.rows}:days=${config.days}:agents=${config.agents}`;
  await ensureDatabase(config.databaseUrl);
  if (!config.reseed) {
    const existing = await readMarker(config.databaseUrl, key);
    // A complete seed of another methodology version (BENCH_METHODOLOGY_VERSION changed since) is seeded again.
    if (existing && (await latestRowVersion(config.databaseUrl)) === BENCH_METHODOLOGY_VERSION) {
      // Migrations added since the seed (they backfill what they add from the rows or rollups already there).
      await migrateDeploy(config.databaseUrl, { quiet: true });
      return { ...existing, reused: true };
    }
  }

  const started = performance.now();
  log(`seeding ${config.rows.toLocaleString("en-US")} rows over ${config.days} days into ${new URL(config.databaseUrl).pathname.slice(1)} (fresh schema)…`);
  await resetDatabase(config.databaseUrl);
  const admin = new pg.Client({ connectionString: config.databaseUrl });
  await admin.connect();

  const registry = buildBenchRegistry(config.agents);
  const registryDb = createPgPool(config.databaseUrl, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(registry.json), "bench");
  const context = await loadMatchContext(registryDb, EXPLORER);
  await registryDb.end();

  const { kinds, senders } = planTransactions(config.rows, registry.agents);
  const txCount = kinds.length;
  const end = Math.floor(Date.now() / 1000) - 60;
  const start = end - config.days * 86_400;
  const rand = prng(2);
  const pickService = zipf(registry.services.length - 1, 0.8); // ordinary services (index + 1)
  const pickProviderA = zipf(registry.providersA.length, 1);
  const pickFingerprint = zipf(registry.fingerprints.length, 1);
  const pickCounterparty = zipf(registry.counterparties.length, 1.1);
  const pickAgent = zipf(registry.agents.length, 0.9);
  const gatewayWallet = registry.services[0]!.wallets[0]!;
  const amount = () => BigInt(Math.floor(Math.exp(Math.log(1_000) + rand() * (Math.log(50_000_000) - Math.log(1_000)))));
  const hex = (n: number) => createHash("sha256").update(`${n}`).digest("hex");

  /** The logs of transaction i, in block i + 1 (one transaction per block; block times are sub-second, like Tempo's). */
  function transactionLogs(i: number, out: RawLog[]): number {
    const kind = kinds[i]!;
    const sender = registry.agents[senders[i]!]!;
    const from = sender.wallets[0]!;
    const blockNumber = BigInt(i + 1);
    const base = {
      blockNumber,
      blockHash: `0x${hex(-1 - i)}`,
      blockTimestamp: start + Math.floor((i * (end - start)) / txCount),
      txHash: `0x${hex(i)}`,
      txIndex: 0,
    };
    let logIndex = 0;
    const push = (address: string, topics: string[], data: string) => out.push({ ...base, logIndex: logIndex++, address, topics, data });
    const transfer = (to: string, value: bigint) => push(TOKEN, [TRANSFER_TOPIC, topicOf(from), topicOf(to)], word(value));
    const withMemo = (to: string, value: bigint, memo: string) => push(TOKEN, [TRANSFER_WITH_MEMO_TOPIC, topicOf(from), topicOf(to), memo], word(value));
    const value = amount();
    let rows = 2;
    switch (kind) {
      case DIRECT: {
        const to = registry.services[1 + pickService(rand())]!.wallets[0]!;
        transfer(to, value);
        if (rand() < 0.3) withMemo(to, value, `0x${hex(1e9 + i)}`.replace(/^0xef/, "0x00")); // a non-gateway memo
        break;
      }
      case GATEWAY_MEMO: {
        const fp = registry.fingerprints[pickFingerprint(rand())]!;
        transfer(gatewayWallet, value);
        withMemo(gatewayWallet, value, `0xef1ed71201${fp.slice(2)}${"0".repeat(26)}${(i >>> 0).toString(16).padStart(8, "0")}`);
        break;
      }
      case GATEWAY_SETTLEMENT: {
        const provider = registry.providersA[pickProviderA(rand())]!;
        transfer(gatewayWallet, value);
        const out95 = (value * 95n) / 100n;
        push(registry.escrow, [SETTLEMENT_TOPIC, `0x${hex(2e9 + i)}`, topicOf(provider), topicOf(gatewayWallet)], `${word(value)}${word(out95).slice(2)}`);
        // The escrow pays the provider: neither side is watched, so no row (but the log is stored with its transaction).
        push(TOKEN, [TRANSFER_TOPIC, topicOf(registry.escrow), topicOf(provider)], word(out95));
        break;
      }
      case EXTERNAL:
        transfer(registry.counterparties[pickCounterparty(rand())]!, value);
        rows = 1;
        break;
      default: {
        let other = pickAgent(rand());
        if (registry.agents[other]!.id === sender.id) other = (other + 1) % registry.agents.length;
        transfer(registry.agents[other]!.wallets[0]!, value);
      }
    }
    transfer(FEE_MANAGER_ADDRESS, BigInt(1_000 + Math.floor(rand() * 2_000))); // the fee of every transaction
    return rows + (sender.track_fees ? 1 : 0);
  }

  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 1 });
  const client = await pool.connect();
  let rawLogs = 0;
  let rows = 0;
  let previousBlock = 0n;
  let writing: Promise<unknown> | null = null;
  let lastReport = performance.now();
  try {
    for (let first = 0; first < txCount; first += TXS_PER_BATCH) {
      const last = Math.min(txCount, first + TXS_PER_BATCH) - 1;
      const logs: RawLog[] = [];
      let expected = 0;
      for (let i = first; i <= last; i++) expected += transactionLogs(i, logs);
      // The indexer's own steps: keep the logs of watched transactions, match, serialize.
      const kept = selectWatchedLogs(logs, (a) => context.wallets.has(a));
      const matched = matchLogs(kept, context, BENCH_METHODOLOGY_VERSION);
      if (matched.length !== expected)
        throw new Error(`generator and matcher disagree: ${matched.length} rows for transactions ${first}..${last}, expected ${expected}`);
      const prepared = prepareBatch(kept, matched);
      if (writing) await writing;
      const toBlock = BigInt(last + 1);
      const batch = { streamId: SEED_STREAM, chainId: BENCH_CHAIN_ID, startBlock: 1n, previousBlock, toBlock, toBlockHash: kept.at(-1)!.blockHash, prepared };
      previousBlock = toBlock;
      rawLogs += kept.length;
      rows += matched.length;
      writing = writeBatch(client, batch);
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        log(`  … ${rows.toLocaleString("en-US")} rows, ${rawLogs.toLocaleString("en-US")} raw logs (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
    if (writing) await writing;
  } finally {
    client.release();
    await pool.end();
  }
  log("  VACUUM ANALYZE (what autovacuum would do after a backfill)…");
  await admin.query("VACUUM (ANALYZE)");

  const busy = registry.services[1]!; // pickService's most frequent
  const info: SeedInfo = {
    rows,
    txs: txCount,
    rawLogs,
    lastBlock: String(txCount),
    firstTs: new Date(start * 1000).toISOString(),
    lastTs: new Date(end * 1000).toISOString(),
    seededAt: new Date().toISOString(),
    seedSeconds: Math.round((performance.now() - started) / 100) / 10,
    gatewayId: "tempo-gateway-mpp",
    busyServiceId: busy.id,
    busyServiceWallet: busy.wallets[0]!,
    textQuery: "search",
  };
  await admin.query("CREATE TABLE IF NOT EXISTS bench_seed (key text PRIMARY KEY, info jsonb NOT NULL)");
  await admin.query("INSERT INTO bench_seed (key, info) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET info = EXCLUDED.info", [key, info]);
  await admin.end();
  return info;
}
