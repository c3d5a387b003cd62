import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool } from "@agent-ledger/db";
import { DEV_PRIVATE_KEYS } from "@agent-ledger/devnet";
import { runCli, spawnCli, type CliProcess } from "../packages/cli/test/support/spawnCli.ts";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";
import { freePort } from "../packages/api/test/support/freePort.ts";
import { startFeedLedger, until, type FeedLedger } from "../packages/api/test/support/feedLedger.ts";
import { createTestUser, type TestUser } from "../packages/api/test/support/walletFixtures.ts";

// The `agent-ledger` CLI as a child process against the real API (real PostgreSQL, a real devnet whose payments the
// real indexer turns into ledger rows): webhooks (every subcommand, --json and text), the live feed (limit, --since
// replay, and resuming after the API restarts mid-stream), and the session commands' exit codes on real answers.
// The full pairing flow through a browser is e2e/wallet.test.ts.

const FEED = { enabled: true, heartbeatMs: 200, pollMs: 300, retryMs: 100 };
const masterKey = randomBytes(32);
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

let ledger: FeedLedger;
let pool: pg.Pool;
let app: App;
let port: number;
let api: string;
let sql: pg.Client;
let user: TestUser;
const dirs: string[] = [];
const running: CliProcess[] = [];

async function startApp(): Promise<App> {
  const a = buildApp({
    pool,
    log,
    dashboardCacheTtlMs: 0,
    feed: FEED,
    webhooks: { masterKey, production: false },
    wallet: { masterKey, publicBaseUrl: api, rpcUrl: ledger.anvil.url, sponsorPrivateKey: DEV_PRIVATE_KEYS[1] },
  });
  await a.start(port);
  return a;
}

/** A config dir holding a paired session for `api` with this bearer (what `pair` writes). */
async function configWith(bearer: string | null): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "al-e2e-cli-"));
  dirs.push(dir);
  if (bearer) {
    await mkdir(dir, { recursive: true });
    const session = {
      api,
      access_token: bearer,
      token_type: "Bearer",
      session_id: "fixture",
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      agent_key_address: "0x0",
      managed_address: "0x0",
      spend_cap_wei: "1000000",
      per_call_cap_wei: "100000",
      token: "0x20c0000000000000000000000000000000000000",
      agent_label: "fixture",
      paired_at: new Date().toISOString(),
    };
    await writeFile(join(dir, "credentials.json"), JSON.stringify({ version: 1, current: api, sessions: { [api]: session } }), { mode: 0o600 });
  }
  return dir;
}

const cli = (args: string[], dir: string, timeoutMs = 30_000) => runCli(["--api", api, ...args], { env: { AGENT_LEDGER_CONFIG_DIR: dir }, timeoutMs });
const json = (text: string) => JSON.parse(text);

beforeAll(async () => {
  ledger = await startFeedLedger();
  await ledger.pay(3);
  pool = createPgPool(ledger.db.url, { max: 5, applicationName: "e2e-cli" });
  pool.on("error", () => {});
  port = await freePort();
  api = `http://127.0.0.1:${port}`;
  app = await startApp();
  sql = new pg.Client({ connectionString: ledger.db.url });
  await sql.connect();
  user = await createTestUser(ledger.db.url);
}, 180_000);

afterAll(async () => {
  for (const p of running) p.kill("SIGKILL");
  await sql?.end();
  await app?.stop();
  await pool?.end();
  await ledger?.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("agent-ledger basics", () => {
  it("--version, --help (exit 0); a usage error (exit 2); not paired (exit 3)", async () => {
    const dir = await configWith(null);
    const version = await cli(["--version"], dir);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await cli(["--help"], dir)).stdout).toContain("Usage: agent-ledger <command>");
    const bad = await cli(["pay", "--to", "0x00000000000000000000000000000000000000aa", "--amount", "1.0000001"], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/more than 6 decimal places/);
    const notPaired = await cli(["webhooks", "list", "--json"], dir);
    expect(notPaired.code).toBe(3);
    expect(json(notPaired.stderr).error).toMatchObject({ code: "not_paired", exit_code: 3 });
  });
});

describe("agent-ledger webhooks", () => {
  it("create → verify → pause → resume → rotate-secret → deliveries → redeliver → delete, against the real API", async () => {
    const dir = await configWith(user.bearer);
    const created = await cli(
      ["webhooks", "create", "--json", "--url", "http://127.0.0.1:9/hook", "--agent", "demo-agent-alpha", "--label", "cli hook", "--min-amount", "0.5"],
      dir,
    );
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const sub = json(created.stdout);
    expect(sub).toMatchObject({ ok: true, status: "pending_verify", label: "cli hook", filters: { agent_id: "demo-agent-alpha", min_amount_wei: "500000" } });
    expect(sub.signing_secret).toMatch(/^whsec_/);

    const list = await cli(["webhooks", "list"], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${sub.id}  pending_verify  "cli hook"`);
    expect(list.stdout).toContain("filters: agent demo-agent-alpha, ≥ 0.50 USD"); // the allowlist: two 6-decimal USD tokens

    // pausing an unverified subscription is refused by the state machine (409 → exit 1, server message shown)
    const early = await cli(["webhooks", "pause", sub.id], dir);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/\[409 invalid_state\]/);

    const verified = await cli(["webhooks", "verify", sub.id, "--token", sub.verify_token], dir);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`${sub.id} is active.`);
    expect((await cli(["webhooks", "pause", sub.id], dir)).stdout).toContain("is now paused");
    expect((await cli(["webhooks", "resume", sub.id], dir)).stdout).toContain("is now active");

    const rotated = json((await cli(["webhooks", "rotate-secret", sub.id, "--json"], dir)).stdout);
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.signing_secret).not.toBe(sub.signing_secret);

    const shown = json((await cli(["webhooks", "show", sub.id, "--json"], dir)).stdout);
    expect(shown).toMatchObject({ id: sub.id, status: "active", deliveries: { total: 1 } });

    const deliveries = json((await cli(["webhooks", "deliveries", sub.id, "--json", "--limit", "10"], dir)).stdout);
    expect(deliveries.items).toHaveLength(1);
    expect(deliveries.items[0].type).toBe("verify");
    const text = await cli(["webhooks", "deliveries", sub.id], dir);
    expect(text.stdout).toMatch(new RegExp(`${deliveries.items[0].id}\\s+\\w+\\s+verify ping`));

    const again = await cli(["webhooks", "redeliver", sub.id, deliveries.items[0].id], dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("queued for a new attempt");
    const { rows } = await sql.query("SELECT status FROM webhook_deliveries WHERE id = $1", [deliveries.items[0].id]);
    expect(rows[0].status).toBe("retrying");

    expect((await cli(["webhooks", "delete", sub.id], dir)).stdout).toContain("deleted");
    const gone = await cli(["webhooks", "show", sub.id, "--json"], dir);
    expect(gone.code).toBe(1);
    expect(json(gone.stderr).error).toMatchObject({ code: "not_found", status: 404 });
  });

  it("recover --since (a duration or an ISO time) and test, against the real API and ledger rows", async () => {
    const dir = await configWith(user.bearer);
    const {
      rows: [busiest],
    } = await sql.query("SELECT agent_id, count(*)::int AS n FROM agent_events GROUP BY agent_id ORDER BY n DESC, agent_id LIMIT 1");
    expect(busiest.n).toBeGreaterThan(0);
    const sub = json((await cli(["webhooks", "create", "--json", "--url", "http://127.0.0.1:9/recover", "--agent", busiest.agent_id], dir)).stdout);
    const early = await cli(["webhooks", "recover", "--since", "1h", sub.id], dir);
    expect([early.code, early.stderr]).toEqual([1, expect.stringMatching(/\[409 invalid_state\]/)]);
    expect((await cli(["webhooks", "verify", sub.id, "--token", sub.verify_token], dir)).code).toBe(0);

    const recovered = await cli(["webhooks", "recover", "--since", "1h", "--json", sub.id], dir);
    expect(recovered.code).toBe(0);
    const r = json(recovered.stdout);
    const {
      rows: [made],
    } = await sql.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND type = 'event'", [sub.id]);
    expect(r).toMatchObject({ ok: true, id: sub.id, deliveries_created: made.n, matched_events: made.n });
    expect(made.n).toBeGreaterThanOrEqual(busiest.n);
    const again = await cli(["webhooks", "recover", "--since", new Date(Date.now() - 3600_000).toISOString(), sub.id], dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`0 deliveries created for ${sub.id}`);
    const tooOld = await cli(["webhooks", "recover", "--since", "8d", sub.id], dir);
    expect([tooOld.code, tooOld.stderr]).toEqual([2, expect.stringMatching(/since_too_old/)]);
    expect((await cli(["webhooks", "recover", "--since", "yesterday", sub.id], dir)).code).toBe(2);

    const tested = await cli(["webhooks", "test", sub.id], dir);
    expect(tested.code).toBe(0);
    const deliveryId = /delivery ([0-9a-f-]{36})/.exec(tested.stdout)?.[1];
    const {
      rows: [test],
    } = await sql.query("SELECT type, event_id FROM webhook_deliveries WHERE id = $1 AND subscription_id = $2", [deliveryId, sub.id]);
    expect(test).toEqual({ type: "test", event_id: null });
    expect((await cli(["webhooks", "deliveries", sub.id], dir)).stdout).toMatch(new RegExp(`${deliveryId}\\s+\\w+\\s+test event`));
  });

  it("maps the server's refusals to exit codes: 400 → 2, unknown bearer → 3, revoked / expired session → 5", async () => {
    const dir = await configWith(user.bearer);
    const invalid = await cli(["webhooks", "create", "--url", "ftp://x", "--agent", "demo-agent-alpha"], dir);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/\[400 /);
    const unknownAgent = await cli(["webhooks", "create", "--url", "http://127.0.0.1:9/h", "--agent", "nobody"], dir);
    expect(unknownAgent.code).toBe(2);
    expect(unknownAgent.stderr).toMatch(/unknown_agent/);

    expect((await cli(["webhooks", "list"], await configWith(`alt_${randomBytes(24).toString("base64url")}`))).code).toBe(3);
    const revoked = await createTestUser(ledger.db.url, { revoked: true });
    const r = await cli(["webhooks", "list"], await configWith(revoked.bearer));
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/session_revoked/);
    const expired = await createTestUser(ledger.db.url, { sessionExpiresAt: new Date(Date.now() - 1000) });
    expect((await cli(["webhooks", "list"], await configWith(expired.bearer))).code).toBe(5);
  });
});

describe("agent-ledger feed", () => {
  it("--since replays history in id order, --limit ends it (exit 0), --json prints one row per line", async () => {
    const dir = await configWith(null);
    const ids = await ledger.ids(0);
    const run = await cli(["feed", "--since", "0", "--limit", String(ids.length), "--json"], dir);
    expect(run.code).toBe(0);
    const rows = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(Object.keys(rows[0])).toContain("explorer_url");
    const filtered = await cli(["feed", "--since", "0", "--limit", "1", "--agent", "demo-agent-beta"], dir);
    expect(filtered.stdout).toMatch(/^#\d+ \S+ demo-agent-beta payment_\w+ \d+\.\d+( \S+)? [→←] .* tx 0x[0-9a-f]{64}\n$/);
  });

  it("follows live rows and resumes with Last-Event-ID after the API restarts, without gaps or duplicates", async () => {
    const dir = await configWith(null);
    const start = await ledger.maxId();
    await ledger.pay(1);
    const firstBatch = await ledger.ids(start);
    // Wait for exactly: the first batch, then (after a restart) the second.
    const p = spawnCli(["--api", api, "feed", "--since", String(start), "--json", "--limit", "999"], {
      env: { AGENT_LEDGER_CONFIG_DIR: dir },
      timeoutMs: 90_000,
    });
    running.push(p);
    await until(() => p.stdout().trim().split("\n").filter(Boolean).length >= firstBatch.length, "first rows", 30_000);

    await app.stop(); // ends every stream; the client keeps retrying
    await ledger.pay(1); // rows committed while the API is down
    app = await startApp();
    await ledger.pay(1); // and live after the restart
    const all = await ledger.ids(start);
    await until(() => p.stdout().trim().split("\n").filter(Boolean).length >= all.length, "rows after the restart", 30_000);
    p.kill("SIGINT");
    const run = await p.exited;
    expect(run.code).toBe(130);
    const got = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(got).toEqual(all);
  });

  it("reports a disabled feed with the server's message (exit 1)", async () => {
    const dir = await configWith(null);
    const off = buildApp({ pool, log, feed: { enabled: false } });
    const url = await off.start(0);
    try {
      const run = await runCli(["--api", url, "feed"], { env: { AGENT_LEDGER_CONFIG_DIR: dir } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/feed_disabled/);
    } finally {
      await off.stop();
    }
  });
});

describe("agent-ledger status / pay / revoke exit codes against the wallet API", () => {
  it("status (exit 0), pay over the per-call cap (exit 4), revoke (forgets the token), then not paired (exit 3)", async () => {
    const u = await createTestUser(ledger.db.url);
    const dir = await configWith(u.bearer);
    const status = await cli(["status", "--json"], dir);
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(json(status.stdout)).toMatchObject({ api, session_id: u.walletSessionId, status: "active", spend_cap_wei: "1000000", per_call_cap_wei: "100000" });

    const text = await cli(["status"], dir);
    expect(text.stdout).toMatch(/Spent\s+0\.00 of 1\.00 \(1\.00 left\)/);
    expect(text.stdout).toMatch(/Per payment\s+at most 0\.10/);

    const over = await cli(["pay", "--to", "0x00000000000000000000000000000000000000aa", "--amount", "0.2"], dir);
    expect(over.code).toBe(4);
    expect(over.stderr).toMatch(/per_call_cap_exceeded/);

    const revoked = await cli(["revoke", "--json"], dir);
    expect(revoked.code).toBe(0);
    expect(json(revoked.stdout)).toMatchObject({ status: "revoked", forgotten: true });
    const file = JSON.parse(await readFile(join(dir, "credentials.json"), "utf8"));
    expect(file.sessions).toEqual({});
    const { rows } = await sql.query("SELECT revoked_at FROM wallet_sessions WHERE id = $1", [u.walletSessionId]);
    expect(rows[0].revoked_at).not.toBeNull();
    expect((await cli(["status"], dir)).code).toBe(3);
  });

  it("an expired session: status and pay exit 5", async () => {
    const u = await createTestUser(ledger.db.url, { sessionExpiresAt: new Date(Date.now() - 1000) });
    const dir = await configWith(u.bearer);
    expect((await cli(["status"], dir)).code).toBe(5);
    const pay = await cli(["pay", "--to", "0x00000000000000000000000000000000000000aa", "--amount", "0.01", "--json"], dir);
    expect(pay.code).toBe(5);
    expect(json(pay.stderr).error.code).toBe("session_expired");
  });
});
