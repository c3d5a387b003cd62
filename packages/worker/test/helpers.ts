import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { randomBytes } from "node:crypto";
import {
  CURRENT_METHODOLOGY_VERSION,
  generateToken,
  hashToken,
  matchLogs,
  sealSecret,
  verifyWebhook,
  type EventDraft,
  type MatchContext,
  type RawLog,
} from "@agent-ledger/core";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import { Redis } from "ioredis";
import type pg from "pg";
import { pino } from "pino";
import { encodeAbiParameters, encodeEventTopics, parseAbiItem, type Address } from "viem";
import { startWorker, type StartWorkerOptions } from "../src/startWorker.ts";

export const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A BullMQ prefix no other test (or run) uses. */
export function uniquePrefix(label: string): string {
  return `wt-${label}-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Deletes every Redis key of one prefix (never FLUSHDB: the Redis is shared). */
export async function deletePrefixKeys(prefix: string, redisUrl = REDIS_URL): Promise<number> {
  const redis = new Redis(redisUrl);
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return deleted;
}

export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? "condition"}${last ? `: ${String(last)}` : ""}`);
    await sleep(options.intervalMs ?? 25);
  }
}

/** A clock that runs `scale` times faster than real time from `start` (pair it with delayScale = scale). */
export function scaledClock(scale: number, start = new Date("2026-11-22T06:00:00Z")): () => Date {
  const t0 = performance.now();
  return () => new Date(start.getTime() + Math.round((performance.now() - t0) * scale));
}

// ─── Database ────────────────────────────────────────────────────────────────────────────────────

export interface TestDb {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function setupDb(): Promise<TestDb> {
  const db = await createTestDatabase();
  const pool = createPgPool(db.url, { max: 6, applicationName: "worker-test" });
  pool.on("error", () => {}); // idle clients die when the database is dropped at the end
  return {
    url: db.url,
    pool,
    drop: async () => {
      await pool.end().catch(() => {});
      await db.drop();
    },
  };
}

export const masterKey = randomBytes(32);

export async function createOwner(pool: pg.Pool): Promise<string> {
  const n = randomBytes(20).toString("hex");
  const { rows } = await pool.query(
    `INSERT INTO wallet_users (id, credential_id, cose_public_key, public_key_hex, managed_address)
     VALUES (gen_random_uuid(), $1, '\\x00', '0x04', $2) RETURNING id`,
    [`cred-${n}`, `0x${n}`],
  );
  return rows[0].id as string;
}

export interface TestSubscription {
  id: string;
  secret: string;
  verifyToken: string;
}

/** A subscription row exactly as the API stores it (sealed secret and verify token). */
export async function createSubscription(
  pool: pg.Pool,
  input: {
    owner: string;
    callbackUrl: string;
    agentId: string;
    status?: string;
    consecutiveFailures?: number;
    recipient?: string | null;
    routedTo?: string | null;
    minAmountWei?: bigint | null;
    token?: string | null;
    verifyExpiresAt?: Date;
    key?: Buffer;
  },
): Promise<TestSubscription> {
  const id = `whs_${randomBytes(9).toString("base64url")}`;
  const secret = generateToken("whsec_");
  const verifyToken = generateToken("whvt_");
  const key = input.key ?? masterKey;
  await pool.query(
    `INSERT INTO webhook_subscriptions (id, owner_user_id, status, callback_url, label, filter_agent_id, filter_recipient_address,
       filter_routed_to_address, filter_min_amount_wei, filter_token_address, signing_secret_ciphertext, verify_token_hash,
       verify_token_ciphertext, verify_token_expires_at, verified_at, consecutive_failures)
     VALUES ($1, $2, $3, $4, 'test', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      id,
      input.owner,
      input.status ?? "active",
      input.callbackUrl,
      input.agentId,
      input.recipient ?? null,
      input.routedTo ?? null,
      input.minAmountWei?.toString() ?? null,
      input.token ?? null,
      sealSecret(secret, key, id),
      hashToken(verifyToken),
      sealSecret(verifyToken, key, id),
      input.verifyExpiresAt ?? new Date(Date.now() + 24 * 3600_000),
      (input.status ?? "active") === "pending_verify" ? null : new Date(),
      input.consecutiveFailures ?? 0,
    ],
  );
  return { id, secret, verifyToken };
}

/** What the API does after creating a subscription: a pending verification ping, then NOTIFY. */
export async function createVerifyPing(pool: pg.Pool, subscriptionId: string, now = new Date()): Promise<string> {
  const { rows } = await pool.query(
    "INSERT INTO webhook_deliveries (id, subscription_id, event_id, type, status, next_attempt_at) VALUES (gen_random_uuid(), $1, NULL, 'verify', 'pending', $2) RETURNING id",
    [subscriptionId, now],
  );
  await pool.query("SELECT pg_notify('webhook_deliveries', $1)", [rows[0].id]);
  return rows[0].id as string;
}

/** What the API's resume does: re-arm, pull held deliveries forward, NOTIFY them. */
export async function resumeSubscription(pool: pg.Pool, subscriptionId: string, now = new Date()): Promise<void> {
  await pool.query("UPDATE webhook_subscriptions SET status = 'active', consecutive_failures = 0, status_reason = NULL WHERE id = $1", [subscriptionId]);
  const { rows } = await pool.query(
    "UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE subscription_id = $1 AND status IN ('pending','retrying') RETURNING id",
    [subscriptionId, now],
  );
  for (const r of rows) await pool.query("SELECT pg_notify('webhook_deliveries', $1)", [r.id]);
}

export async function deliveryRows(pool: pg.Pool, subscriptionId: string) {
  const { rows } = await pool.query(
    `SELECT id, event_id::text AS event_id, type, status, attempts, last_http_status, last_error, last_response_ms, last_attempt_at,
            next_attempt_at, completed_at FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_id NULLS FIRST, id`,
    [subscriptionId],
  );
  return rows as {
    id: string;
    event_id: string | null;
    type: string;
    status: string;
    attempts: number;
    last_http_status: number | null;
    last_error: string | null;
    last_response_ms: number | null;
    last_attempt_at: Date | null;
    next_attempt_at: Date | null;
    completed_at: Date | null;
  }[];
}

export async function subscriptionRow(pool: pg.Pool, id: string) {
  const { rows } = await pool.query("SELECT status, consecutive_failures, status_reason FROM webhook_subscriptions WHERE id = $1", [id]);
  return rows[0] as { status: string; consecutive_failures: number; status_reason: string | null };
}

// ─── Events through the indexer's write path ────────────────────────────────────────────────────────

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 amount)");
export const PATH_USD = "0x20c0000000000000000000000000000000000000";
export const ALPHA_USD = "0x20c0000000000000000000000000000000000001";

export function randomAddress(): string {
  return `0x${randomBytes(20).toString("hex")}`;
}

export interface Payment {
  from: string;
  to: string;
  amount: bigint;
  token?: string;
}

/**
 * Writes agent_events the way the indexer does: viem-encoded TIP-20 Transfer logs → core matchLogs →
 * prepareBatch → writeBatch (raw logs, rows, rollups, checkpoint, NOTIFY agent_events), one block per call.
 */
export function createEventSeeder(pool: pg.Pool, agents: { id: string; wallet: string }[], options: { streamId?: string } = {}) {
  const streamId = options.streamId ?? "tempo-test";
  const context: MatchContext = {
    wallets: new Map(agents.map((a) => [a.wallet.toLowerCase(), { id: a.id, label: `Label ${a.id}`, category: "agent", trackFees: false }])),
    addressLabels: new Map(),
    fingerprintLabels: new Map(),
    settlementContracts: new Set(),
    explorerBaseUrl: "https://explore.test",
  };
  let chain: Promise<unknown> = Promise.resolve();
  async function insert(payments: Payment[], opts: { version?: string } = {}): Promise<{ ids: bigint[]; rows: EventDraft[] }> {
    const run = async () => {
      const client = await pool.connect();
      try {
        const cp = await client.query("SELECT last_block::text AS b FROM indexer_checkpoints WHERE id = $1", [streamId]);
        const previous = cp.rows[0] ? BigInt(cp.rows[0].b) : 0n;
        const block = previous + 1n;
        const txHash = `0x${randomBytes(32).toString("hex")}`;
        const logs: RawLog[] = payments.map((p, i) => ({
          blockNumber: block,
          blockHash: `0x${randomBytes(32).toString("hex")}`,
          blockTimestamp: Math.floor(Date.now() / 1000),
          txHash,
          txIndex: 0,
          logIndex: i,
          address: p.token ?? PATH_USD,
          topics: encodeEventTopics({ abi: [transferEvent], eventName: "Transfer", args: { from: p.from as Address, to: p.to as Address } }) as string[],
          data: encodeAbiParameters([{ type: "uint256" }], [p.amount]),
        }));
        let rows = matchLogs(logs, context, CURRENT_METHODOLOGY_VERSION);
        if (opts.version) rows = rows.map((r) => ({ ...r, methodologyVersion: opts.version! }));
        const result = await writeBatch(client, {
          streamId,
          chainId: 31337,
          startBlock: 1n,
          previousBlock: previous,
          toBlock: block,
          toBlockHash: null,
          prepared: prepareBatch(logs, rows),
        });
        const ids: bigint[] = [];
        if (result.firstEventId !== null) for (let id = result.firstEventId; id <= result.lastEventId!; id++) ids.push(id);
        return { ids, rows };
      } finally {
        client.release();
      }
    };
    const p = chain.then(run, run);
    chain = p.catch(() => {});
    return p;
  }
  return { insert, context };
}

// ─── Receivers ───────────────────────────────────────────────────────────────────────────────────────

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  rawBody: Buffer;
  body: Record<string, unknown>;
  /** performance.now() at arrival. */
  at: number;
  /** verifyWebhook result when the receiver knows the subscription's secret. */
  verified: boolean | null;
}

export type Behavior = (req: ReceivedRequest, res: ServerResponse) => void;

export const behaviors: Record<string, Behavior> = {
  ok: (_req, res) => {
    res.writeHead(200);
    res.end("ok");
  },
  gone: (_req, res) => {
    res.writeHead(410);
    res.end("gone");
  },
  bad: (_req, res) => {
    res.writeHead(400);
    res.end("bad request");
  },
  throttled: (_req, res) => {
    res.writeHead(429, { "Retry-After": "3600" });
    res.end("slow down");
  },
  fail: (_req, res) => {
    res.writeHead(500);
    res.end("boom");
  },
  hang: () => {},
  redirect: (_req, res) => {
    res.writeHead(302, { Location: "/ok" });
    res.end();
  },
};

/**
 * A loopback receiver: records every request (raw body kept), verifies signatures with core verifyWebhook
 * when it knows the secret of the Svc-Subscription, and answers by path (`/<behavior>`) or by override.
 */
export async function startReceiver(options: { secrets?: Map<string, string>; now?: () => Date } = {}) {
  const requests: ReceivedRequest[] = [];
  const overrides = new Map<string, Behavior>();
  const secrets = options.secrets ?? new Map<string, string>();
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const path = (req.url ?? "/").split("?")[0]!;
      const sub = req.headers["svc-subscription"] as string | undefined;
      let verified: boolean | null = null;
      const secret = sub ? secrets.get(sub) : undefined;
      if (secret) {
        try {
          verifyWebhook(rawBody, req.headers, secret, { toleranceSeconds: 300, now: options.now?.() ?? new Date() });
          verified = true;
        } catch {
          verified = false;
        }
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(rawBody.toString("utf8"));
      } catch {
        /* recorded raw */
      }
      const r: ReceivedRequest = { path, headers: req.headers, rawBody, body, at: performance.now(), verified };
      requests.push(r);
      const name = path.slice(1);
      const behavior = overrides.get(name) ?? behaviors[name] ?? behaviors.ok!;
      behavior(r, res);
    });
  });
  server.on("connection", (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}/${path}`,
    requests,
    secrets,
    overrides,
    get connections() {
      return connections;
    },
    forSubscription: (id: string) => requests.filter((r) => r.headers["svc-subscription"] === id),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// ─── Worker ──────────────────────────────────────────────────────────────────────────────────────────

export async function startTestWorker(db: TestDb, overrides: Partial<StartWorkerOptions> & { prefix: string }) {
  return startWorker({
    databaseUrl: db.url,
    redisUrl: REDIS_URL,
    concurrency: 8,
    masterKey,
    production: false,
    methodologyVersion: CURRENT_METHODOLOGY_VERSION,
    log: silentLog,
    timeoutMs: 2_000,
    leaseMs: 5_000,
    dispatch: { pollMs: 200 },
    maintenanceIntervalMs: 60_000,
    shutdownGraceMs: 5_000,
    ...overrides,
  });
}
