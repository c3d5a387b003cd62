import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSecret, parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { DEV_PRIVATE_KEYS, FEE_MANAGER, PATH_USD, createDevnetClient, startAnvil, withTimeout, type AnvilInstance } from "@agent-ledger/devnet";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { pino } from "pino";
import pg from "pg";
import { isAddressEqual, parseEventLogs, stringToHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Abis, Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli, type CliProcess } from "../packages/cli/test/support/spawnCli.ts";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";
import { freePort, launchChromium } from "./support/browser.ts";
import { indexAll } from "../packages/api/test/support/seedDevnetLedger.ts";

// The whole wallet flow, end to end, with nothing mocked: a devnet (anvil, Tempo T4), PostgreSQL, the real API with
// the wallet configured, the real `agent-ledger` CLI as child processes, and Debian Chromium (playwright-core) with
// a CDP virtual authenticator (CTAP2, internal, resident keys, user verification) on the approval page.
//   CLI `pair` → page registers a passkey → approves caps → the passkey authorizes the agent key on chain, gas
//   sponsored by our relay → finalize verifies it → the CLI receives its token → `pay` moves tokens on chain →
//   the indexer records the payment in the ledger. Plus the page's error states and passkey sign-in.

const FUNDER = DEV_PRIVATE_KEYS[0];
const SPONSOR = DEV_PRIVATE_KEYS[1];
const WATCHED_ID = "e2e-wallet-agent";
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let sql: pg.Client;
let app: App;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
let configDir: string;
const masterKey = randomBytes(32);
const children: CliProcess[] = [];
const pageLog: string[] = [];

const makeFunder = (url: string) => createDevnetClient({ url, account: Account.fromSecp256k1(FUNDER) });
let funder: ReturnType<typeof makeFunder>;
const reader = () => createDevnetClient({ url: anvil.url });
const balance = async (address: Hex) => (await reader().token.getBalance({ token: PATH_USD, account: address })).amount;

const cli = (args: string[], timeoutMs = 60_000) => runCli(["--api", base, ...args], { env: { AGENT_LEDGER_CONFIG_DIR: configDir }, timeoutMs });

/** Waits until the page reaches one of `states` (body[data-state]); returns it. */
async function pageState(states: string[], timeoutMs = 30_000): Promise<string> {
  await page.waitForFunction((s) => s.includes(document.body.dataset.state ?? ""), states, { timeout: timeoutMs });
  return page.evaluate(() => document.body.dataset.state ?? "");
}

/** E2E_SCREENSHOTS=dir saves a full-page screenshot of each step (for looking at the page; off by default). */
async function shot(name: string): Promise<void> {
  if (process.env.E2E_SCREENSHOTS) await page.screenshot({ path: join(process.env.E2E_SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function errorShown(): Promise<{ kind: string; title: string; detail: string }> {
  return page.evaluate(() => ({
    kind: document.body.dataset.errorKind ?? "",
    title: document.getElementById("error-title")?.textContent ?? "",
    detail: document.getElementById("error-detail")?.textContent ?? "",
  }));
}

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  pool = createPgPool(db.url, { max: 5, applicationName: "e2e-wallet" });
  pool.on("error", () => {});
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  funder = makeFunder(anvil.url);

  const port = await freePort();
  base = `http://localhost:${port}`; // the RP ID is "localhost": the page must be on that host
  app = buildApp({
    pool,
    log,
    webhooks: { masterKey, production: false },
    wallet: {
      masterKey,
      production: false,
      publicBaseUrl: base,
      rpId: "localhost",
      rpcUrl: anvil.url,
      sponsorPrivateKey: SPONSOR,
      explorerBaseUrl: "https://explore.test",
      pollIntervalSeconds: 1,
    },
  });
  await app.start(port, "127.0.0.1");

  configDir = await mkdtemp(join(tmpdir(), "al-e2e-wallet-"));
  browser = await launchChromium();
  context = await browser.newContext(); // a fresh profile
  context.setDefaultTimeout(30_000);
  page = await context.newPage();
  page.on("console", (m) => void pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => void pageLog.push(`[pageerror] ${e.message}`));
  cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  ({ authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
}, 180_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await browser?.close().catch(() => {});
  await app?.stop().catch(() => {});
  await sql?.end().catch(() => {});
  await pool?.end().catch(() => {});
  await anvil?.stop();
  await db?.drop();
  if (configDir) await rm(configDir, { recursive: true, force: true });
  if (process.env.E2E_PAGE_LOG) console.log(pageLog.join("\n"));
}, 60_000);

describe("wallet end to end: CLI + approval page in Chromium + devnet + indexer", () => {
  let managed: Hex;
  let agentKey: Hex;
  let code: string;

  it("serves the approval page, which asks for a code when the link has none", async () => {
    await page.goto(`${base}/approve`);
    expect(await pageState(["code"])).toBe("code");
    await shot("0-code");
    await page.getByLabel(/Code from your terminal/).fill("not a code");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect.poll(() => page.textContent("#code-input-error")).toMatch(/Enter the 8 letters/);
    expect(await page.evaluate(() => isSecureContext)).toBe(true);
  });

  it("pairs: the CLI prints a code, the page registers a passkey (after a cancelled prompt), approves caps, the key is authorized on chain with sponsored gas, the CLI gets its token", async () => {
    const pair = spawnCli(["--api", base, "pair", "--json", "--no-open", "--label", "e2e agent"], {
      env: { AGENT_LEDGER_CONFIG_DIR: configDir },
      timeoutMs: 240_000,
    });
    children.push(pair);
    const started = JSON.parse((await pair.waitFor(/^\{"event":"started".*\}$/m, 30_000))[0]);
    code = started.code;
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.approve_url).toBe(`${base}/approve?code=${code}`);

    await page.goto(started.approve_url);
    expect(await pageState(["signin"])).toBe("signin");
    expect(await page.textContent("#code")).toBe(code);
    await shot("1-signin");

    // A passkey prompt that fails (user verification refused) is reported as cancelled, and nothing is created.
    await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified: false });
    await page.getByRole("button", { name: "Create a new passkey" }).click();
    expect(await pageState(["error"])).toBe("error");
    expect(await errorShown()).toMatchObject({ kind: "cancelled", title: "The passkey prompt was cancelled" });
    await shot("2-cancelled");
    expect((await sql.query("SELECT count(*)::int AS n FROM wallet_users")).rows[0].n).toBe(0);
    await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified: true });
    await page.getByRole("button", { name: "Try again" }).click();
    expect(await pageState(["signin"])).toBe("signin");

    await page.getByRole("button", { name: "Create a new passkey" }).click();
    expect(await pageState(["review", "error"])).toBe("review");
    managed = (await page.textContent("#account")) as Hex;
    const { rows: users } = await sql.query("SELECT managed_address, passkey_sign_count FROM wallet_users");
    expect(users).toHaveLength(1);
    expect(managed).toBe(users[0].managed_address);
    expect(await page.textContent("#agent-label")).toBe("“e2e agent”");
    const creds = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(creds.credentials).toHaveLength(1);
    expect(creds.credentials[0]!.isResidentCredential).toBe(true);

    // The person's account gets funds; the ledger watches it (so the indexer records its payments).
    expect((await funder.token.transferSync({ token: PATH_USD, to: managed, amount: 20_000_000n })).receipt.status).toBe("success");
    const registryDb = createPgPool(db.url, { max: 1 });
    try {
      await loadRegistryIntoDb(
        registryDb,
        parseRegistry({ registry_version: 1, network: "devnet", entities: [{ id: WATCHED_ID, label: "E2E wallet", category: "agent", wallets: [managed] }] }),
        "registry:e2e.json",
      );
    } finally {
      await registryDb.end();
    }

    // Caps: the form validates, then the summary says plainly what is granted.
    await page.getByLabel(/Total spending limit/).fill("5.0000001");
    await page.getByRole("button", { name: "Approve with passkey" }).click();
    await expect.poll(() => page.textContent("#spend-cap-error")).toMatch(/more than 6 decimal places/);
    await page.getByLabel(/Total spending limit/).fill("5");
    await page.getByLabel(/Limit per payment/).fill("2.00");
    await page.getByLabel("Valid for").selectOption("3600");
    await shot("3-review");
    expect(await page.textContent("#summary")).toMatch(
      /“e2e agent” will be able to pay up to 5\.00 USD in total from your account, at most 2\.00 per payment, until /,
    );

    const sponsor = privateKeyToAccount(SPONSOR).address;
    const sponsorBefore = await balance(sponsor);
    await page.getByRole("button", { name: "Approve with passkey" }).click();
    const end = await pageState(["done", "error"], 150_000);
    if (end === "error") throw new Error(`approval failed on the page: ${JSON.stringify(await errorShown())}\n${pageLog.join("\n")}`);
    expect(await page.textContent("#step-done-title")).toBe("Agent approved");
    await shot("4-done");
    expect(await page.textContent("#done-spend-cap")).toBe("5.00 pathUSD");
    expect(await page.textContent("#done-per-call-cap")).toBe("2.00 pathUSD");
    const txHash = (await page.textContent("#done-tx")) as Hex;

    // On chain: a successful tx from the passkey account whose keychain log authorizes exactly the session's key,
    // with the spend cap as its limit; the fee paid by our sponsor, not by the person.
    const { rows: sessions } = await sql.query("SELECT agent_key_address, authorize_tx_hash, on_chain_authorized_at, spend_cap_wei::text FROM wallet_sessions");
    expect(sessions).toHaveLength(1);
    agentKey = sessions[0].agent_key_address;
    expect(sessions[0]).toMatchObject({ authorize_tx_hash: txHash, spend_cap_wei: "5000000" });
    expect(sessions[0].on_chain_authorized_at).not.toBeNull();
    const receipt = await reader().getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");
    expect(isAddressEqual(receipt.from, managed)).toBe(true);
    const authorized = parseEventLogs({ abi: Abis.accountKeychain, eventName: "KeyAuthorized", logs: receipt.logs });
    expect(authorized.some((l) => isAddressEqual(l.args.account, managed) && isAddressEqual(l.args.publicKey, agentKey))).toBe(true);
    const fee = parseEventLogs({ abi: Abis.tip20, eventName: "Transfer", logs: receipt.logs }).find((l) => isAddressEqual(l.args.to, FEE_MANAGER));
    expect(fee && isAddressEqual(fee.args.from, sponsor)).toBe(true);
    expect(await balance(managed)).toBe(20_000_000n); // the person paid nothing
    expect(await balance(sponsor)).toBeLessThan(sponsorBefore);
    const limit = await reader().accessKey.getRemainingLimit({ account: managed, accessKey: agentKey, token: PATH_USD });
    expect(limit.remaining).toBe(5_000_000n);

    // The CLI's next poll gets the token, stores it 0600, and ends.
    const run = await withTimeout(pair.exited, 30_000, "the CLI to finish pairing");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const paired = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(paired).toMatchObject({
      event: "paired",
      api: base,
      managed_address: managed,
      agent_key_address: agentKey,
      spend_cap_wei: "5000000",
      per_call_cap_wei: "2000000",
      token: PATH_USD,
    });
    expect(run.stdout).not.toMatch(/access_token/);
    const path = join(configDir, "credentials.json");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(path, "utf8")).sessions[base];
    const { rows: tokenRows } = await sql.query("SELECT bearer_token_hash FROM wallet_sessions");
    expect(tokenRows[0].bearer_token_hash).toBe(createHash("sha256").update(stored.access_token).digest("hex"));
    const { rows: pairing } = await sql.query("SELECT status, authorize_tx_hash FROM device_pairings WHERE authorize_tx_hash IS NOT NULL");
    expect(pairing).toEqual([{ status: "claimed", authorize_tx_hash: txHash }]);

    // The agent's private key (sealed in the database) never shows up in the page, its storage, its console, or
    // anything the CLI printed; the page keeps nothing in web storage.
    const { rows: sealed } = await sql.query("SELECT id, agent_key_ciphertext FROM wallet_sessions");
    const agentPrivateKey = openSecret(sealed[0].agent_key_ciphertext, masterKey, sealed[0].id);
    expect(privateKeyToAccount(agentPrivateKey as Hex).address.toLowerCase()).toBe(agentKey);
    const pageText = await page.evaluate(
      () => document.documentElement.outerHTML + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    for (const haystack of [pageText, pageLog.join("\n"), run.stdout, run.stderr, await readFile(path, "utf8")]) {
      expect(haystack.toLowerCase()).not.toContain(agentPrivateKey.slice(2).toLowerCase());
    }
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
  }, 240_000);

  it("pays on chain through the CLI, within the caps, and the indexer records the payment", async () => {
    const dest = privateKeyToAccount(generatePrivateKey()).address;
    const sponsor = privateKeyToAccount(SPONSOR).address;
    const sponsorBefore = await balance(sponsor);
    const paid = await cli(["pay", "--to", dest, "--amount", "1.25", "--memo", "e2e-invoice-1", "--json"]);
    expect(paid.stderr).toBe("");
    expect(paid.code).toBe(0);
    const p = JSON.parse(paid.stdout);
    expect(p).toMatchObject({
      from: managed,
      to: dest.toLowerCase(),
      amount_wei: "1250000",
      memo: "e2e-invoice-1",
      token: PATH_USD,
      spend_used_wei_after: "1250000",
      spend_cap_wei: "5000000",
    });
    expect(p.explorer_url).toBe(`https://explore.test/tx/${p.tx_hash}`);

    // Exactly 1.25 moved from the person's account to the recipient; the gas came from the sponsor.
    expect(await balance(dest)).toBe(1_250_000n);
    expect(await balance(managed)).toBe(18_750_000n);
    expect(await balance(sponsor)).toBeLessThan(sponsorBefore);
    const receipt = await reader().getTransactionReceipt({ hash: p.tx_hash });
    const memo = parseEventLogs({ abi: Abis.tip20, eventName: "TransferWithMemo", logs: receipt.logs })[0];
    expect(memo?.args).toMatchObject({ amount: 1_250_000n, memo: stringToHex("e2e-invoice-1", { size: 32 }) });
    expect(isAddressEqual(memo!.args.from, managed)).toBe(true);

    // Caps: per call (2.00) and in total (5.00), refused before the chain (exit 4); a payment that fits goes through.
    const perCall = await cli(["pay", "--to", dest, "--amount", "2.01"]);
    expect(perCall.code).toBe(4);
    expect(perCall.stderr).toMatch(/per_call_cap_exceeded/);
    expect((await cli(["pay", "--to", dest, "--amount", "2"])).code).toBe(0);
    const total = await cli(["pay", "--to", dest, "--amount", "2", "--json"]);
    expect(total.code).toBe(4);
    expect(JSON.parse(total.stderr).error.code).toBe("spend_cap_exceeded");
    expect(await balance(dest)).toBe(3_250_000n);

    const status = await cli(["status", "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      status: "active",
      managed_address: managed,
      agent_key_address: agentKey,
      spend_used_wei: "3250000",
      spend_cap_wei: "5000000",
    });

    // The indexer (real, over the devnet) turns the payment into a ledger row of the watched account.
    await indexAll(db.url, anvil.url, await reader().getBlockNumber({ cacheTime: 0 }));
    const { rows } = await sql.query(
      "SELECT agent_id, kind, amount_wei::text, counterparty_address, tx_hash FROM agent_events WHERE tx_hash = $1 AND kind = 'payment_sent'",
      [p.tx_hash],
    );
    expect(rows).toEqual([{ agent_id: WATCHED_ID, kind: "payment_sent", amount_wei: "1250000", counterparty_address: dest.toLowerCase(), tx_hash: p.tx_hash }]);
    const rest = await fetch(`${base}/api/agents/${WATCHED_ID}`).then((r) => r.json());
    expect(rest.recentEvents.some((e: { tx_hash: string }) => e.tx_hash === p.tx_hash)).toBe(true);
  }, 120_000);

  it("the page explains unknown and expired codes, and signs in with the existing passkey", async () => {
    // signed in (cookie): an unknown code
    await page.goto(`${base}/approve?code=BBBB-BBBB`);
    expect(await pageState(["error"])).toBe("error");
    expect(await errorShown()).toMatchObject({ kind: "not_found", title: "This pairing code is not valid" });

    // an expired code: no retry offered, the way forward is to pair again
    const started = await fetch(`${base}/api/wallet/device/start`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then((r) =>
      r.json(),
    );
    await sql.query("UPDATE device_pairings SET expires_at = now() - interval '1 minute' WHERE id = $1", [started.pairing_id]);
    await page.goto(started.approve_url);
    expect(await pageState(["error"])).toBe("error");
    expect(await errorShown()).toMatchObject({ kind: "expired", title: "This pairing code has expired" });
    await shot("5-expired");
    expect((await errorShown()).detail).toMatch(/agent-ledger pair/);
    expect(await page.isVisible("#retry")).toBe(false);

    // a fresh code, signed out: sign in with the passkey created above (discoverable credential, UV, counter)
    await context.clearCookies();
    const next = await fetch(`${base}/api/wallet/device/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_label: "second agent" }),
    }).then((r) => r.json());
    await page.goto(next.approve_url);
    expect(await pageState(["signin"])).toBe("signin");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    expect(await pageState(["review", "error"])).toBe("review");
    expect(await page.textContent("#account")).toBe(managed);
    expect(await page.textContent("#agent-label")).toBe("“second agent”");
  }, 90_000);

  it("revokes: the server refuses the session from then on and the CLI forgets the token", async () => {
    const revoked = await cli(["revoke"]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/Revoked session/);
    const { rows } = await sql.query("SELECT revoked_at FROM wallet_sessions WHERE agent_key_address = $1", [agentKey]);
    expect(rows[0].revoked_at).not.toBeNull();
    const after = await cli(["pay", "--to", privateKeyToAccount(generatePrivateKey()).address, "--amount", "0.01"]);
    expect(after.code).toBe(3);
    expect(after.stderr).toMatch(/not paired/);
  }, 60_000);
});
