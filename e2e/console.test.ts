import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { createDevnetClient, DEV_PRIVATE_KEYS, PATH_USD, startAnvil, withTimeout, type AnvilInstance } from "@agent-ledger/devnet";
import type { Browser, Page } from "playwright-core";
import { pino } from "pino";
import pg from "pg";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli, type CliProcess } from "../packages/cli/test/support/spawnCli.ts";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";
import { freePort, keyboardReachesEverything, launchChromium, axe, shots as screenshots } from "./support/browser.ts";
import { ownerPage as openOwnerPage } from "./support/ownerConsole.ts";
import { SoftAuthenticator } from "../packages/api/test/support/softAuthenticator.ts";
import { call, registerUser, TEST_RATE_LIMITS } from "../packages/api/test/support/walletApp.ts";
import { authorizeOnChain, fund } from "../packages/api/test/support/walletFlow.ts";

// The owner's console in real Chromium (playwright-core), with a CDP virtual authenticator holding the owner's
// passkey, against the real API, PostgreSQL, a devnet and the real `agent-ledger` CLI: pair (CLI flow), pay twice,
// /wallet shows both payments and the remaining cap exactly; revoke from the page (database + on chain through the
// sponsored relay): the CLI's next pay exits with the revoked code and the agent key is refused by the chain; a
// second owner sees none of it (UI and API); axe finds no serious/critical violation; every control is reachable
// with Tab; screenshots at 1280 and 390 px go to packages/web/screenshots/ (git-ignored).

const SPONSOR = DEV_PRIVATE_KEYS[1];
const HOOK_AGENT = "console-hook-agent";
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let app: App;
let base: string;
let browser: Browser;
let configDir: string;
const children: CliProcess[] = [];
const pageLog: string[] = [];

const cli = (args: string[], timeoutMs = 60_000) => runCli(["--api", base, ...args], { env: { AGENT_LEDGER_CONFIG_DIR: configDir }, timeoutMs });
const reader = () => createDevnetClient({ url: anvil.url });

const ownerPage = (authn: SoftAuthenticator) => openOwnerPage(browser, authn, pageLog);
const shots = (page: Page, name: string) => screenshots(page, `console-${name}`);

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  pool = createPgPool(db.url, { max: 5, applicationName: "e2e-console" });
  pool.on("error", () => {});
  // a watched agent, so that the first owner can create a webhook (filters.agent_id must name one)
  await loadRegistryIntoDb(
    pool,
    parseRegistry({
      registry_version: 1,
      network: "devnet",
      entities: [{ id: HOOK_AGENT, label: "Console hook agent", category: "agent", wallets: [privateKeyToAccount(generatePrivateKey()).address] }],
    }),
    "registry:console.json",
  );
  const port = await freePort();
  base = `http://localhost:${port}`;
  app = buildApp({
    pool,
    log,
    webhooks: { masterKey: Buffer.alloc(32, 7), production: false },
    wallet: {
      masterKey: Buffer.alloc(32, 7),
      production: false,
      publicBaseUrl: base,
      rpId: "localhost",
      rpcUrl: anvil.url,
      sponsorPrivateKey: SPONSOR,
      pollIntervalSeconds: 1,
      ...TEST_RATE_LIMITS(),
    },
  });
  await app.start(port, "127.0.0.1");
  configDir = await mkdtemp(join(tmpdir(), "al-e2e-console-"));
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await browser?.close().catch(() => {});
  await app?.stop().catch(() => {});
  await pool?.end().catch(() => {});
  await anvil?.stop();
  await db?.drop();
  if (configDir) await rm(configDir, { recursive: true, force: true });
  if (process.env.E2E_PAGE_LOG) console.log(pageLog.join("\n"));
}, 60_000);

describe("owner console end to end: CLI pairing + pay, /wallet in Chromium, revoke on chain", () => {
  const owner = new SoftAuthenticator();
  let jar: Record<string, string>;
  let managed: Hex;
  let agentPrivateKey: Hex;
  let sessionId: string;
  let page: Page;

  it("pairs an agent (CLI flow) and pays twice; /wallet shows both payments and the remaining cap exactly", async () => {
    ({ jar } = await registerUser(base, owner, "console owner"));
    const pair = spawnCli(["--api", base, "pair", "--json", "--no-open", "--label", "console agent"], {
      env: { AGENT_LEDGER_CONFIG_DIR: configDir },
      timeoutMs: 120_000,
    });
    children.push(pair);
    const started = JSON.parse((await pair.waitFor(/^\{"event":"started".*\}$/m, 30_000))[0]);
    const init = await call(base, "POST", "/api/wallet/device/approve-init", {
      jar,
      body: { code: started.code, spend_cap_wei: "5000000", per_call_cap_wei: "2000000", session_ttl_seconds: 3600 },
    });
    expect(init.status).toBe(200);
    agentPrivateKey = init.body.agent_private_key;
    sessionId = init.body.session_id;
    managed = init.body.managed_address;
    const receipt = await authorizeOnChain(base, anvil.url, owner, init.body);
    expect(
      (await call(base, "POST", "/api/wallet/device/approve-finalize", { jar, body: { code: started.code, tx_hash: receipt.transactionHash } })).status,
    ).toBe(200);
    expect((await withTimeout(pair.exited, 30_000, "pairing")).code).toBe(0);
    await fund(anvil.url, managed, 20_000_000n);
    const dest = privateKeyToAccount(generatePrivateKey()).address;
    expect((await cli(["pay", "--to", dest, "--amount", "1.25", "--memo", "first"])).code).toBe(0);
    expect((await cli(["pay", "--to", dest, "--amount", "0.000001", "--memo", "second"])).code).toBe(0);

    ({ page } = await ownerPage(owner));
    await page.goto(`${base}/wallet`);
    await page.getByRole("button", { name: "Sign in with passkey" }).click();
    await expect.poll(() => page.textContent("[data-console=account]"), { timeout: 20_000 }).toBe(managed);
    const row = page.locator(`tr[data-session="${sessionId}"]`);
    await expect.poll(() => row.locator("[data-col=spent]").textContent()).toMatch(/^1\.250001/);
    expect(await row.locator("[data-col=remaining]").textContent()).toMatch(/^3\.749999/);
    expect(await row.getAttribute("data-status")).toBe("active");
    await expect.poll(() => page.textContent("[data-console=balances]")).toMatch(/18\.749999/);
    await axe(page, "wallet");
    await keyboardReachesEverything(page, "wallet");
    await shots(page, "wallet");

    await row.getByRole("link", { name: "console agent" }).click();
    await expect.poll(() => page.locator("[data-console=payments] tbody tr").count()).toBe(2);
    const memos = await page.locator("[data-console=payments] tbody tr td:nth-child(4)").allTextContents();
    expect(memos).toEqual(["second", "first"]);
    expect(await page.locator("[data-console=payments] tbody tr td:nth-child(3)").allTextContents()).toEqual([
      expect.stringMatching(/^0\.000001/),
      expect.stringMatching(/^1\.25/),
    ]);
    await axe(page, "wallet session");
    await shots(page, "wallet-session");
  }, 240_000);

  it("revoke from the page: both steps succeed; the CLI's next pay exits 5 (revoked); the chain refuses the agent key", async () => {
    await page.getByRole("button", { name: "Revoke" }).first().click();
    await shots(page, "revoke-confirm");
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 60_000 }).toMatch(/done|failed/);
    const chainText = await page.textContent("[data-step=chain]");
    if ((await page.getAttribute("[data-step=chain]", "data-state")) !== "done") throw new Error(`on-chain step failed: ${chainText}\n${pageLog.join("\n")}`);
    expect(await page.getAttribute("[data-step=db]", "data-state")).toBe("done");
    await axe(page, "revoke progress");
    await shots(page, "revoke-done");
    const s = await call(base, "GET", `/api/wallet/sessions/${sessionId}`, { jar });
    expect(s.body).toMatchObject({ status: "revoked", revoked_by: "owner", chain_revoke: { status: "confirmed" } });
    expect((await reader().accessKey.getMetadata({ account: managed, accessKey: s.body.agent_key_address })).isRevoked).toBe(true);

    const pay = await cli(["pay", "--to", privateKeyToAccount(generatePrivateKey()).address, "--amount", "0.01"]);
    expect(pay.code).toBe(5);
    expect(pay.stderr).toMatch(/revoked/);
    const agent = Account.fromSecp256k1(agentPrivateKey, { access: managed } as never);
    const direct = await createDevnetClient({ url: anvil.url, account: agent as never })
      .token.transfer({ token: PATH_USD, to: privateKeyToAccount(generatePrivateKey()).address, amount: 1n } as never)
      .then(
        (hash) =>
          reader()
            .waitForTransactionReceipt({ hash, timeout: 5_000 })
            .then(
              (r) => r.status,
              () => "refused",
            ),
        () => "refused",
      );
    expect(direct).toBe("refused");
  }, 180_000);

  it("a second owner sees none of the first owner's sessions or webhooks (UI and API)", async () => {
    const hook = await call(base, "POST", "/api/webhooks", {
      jar,
      body: { callback_url: "http://127.0.0.1:9/hook", label: "first's hook", filters: { agent_id: HOOK_AGENT } },
    });
    expect(hook.status, hook.text).toBe(201); // http on 127.0.0.1 is allowed outside production (webhooks: production false)
    const other = new SoftAuthenticator();
    const second = await registerUser(base, other, "second owner");
    const { page: p2 } = await ownerPage(other);
    await p2.goto(`${base}/wallet`);
    await p2.getByRole("button", { name: "Sign in with passkey" }).click();
    await expect.poll(() => p2.textContent("main")).toMatch(/No agent is paired with this account yet/);
    await p2.goto(`${base}/wallet/sessions/${sessionId}`);
    await expect.poll(() => p2.textContent("main")).toMatch(/Session not found/);
    await p2.goto(`${base}/webhooks`);
    await expect.poll(() => p2.textContent("main")).toMatch(/No webhook yet/);
    expect((await call(base, "GET", `/api/wallet/sessions/${sessionId}`, { jar: second.jar })).status).toBe(404);
    expect((await call(base, "GET", "/api/wallet/sessions", { jar: second.jar })).body.items).toEqual([]);
    expect((await call(base, "GET", `/api/webhooks/${hook.body.id}`, { jar })).status).toBe(200);
    expect((await call(base, "GET", `/api/webhooks/${hook.body.id}`, { jar: second.jar })).status).toBe(404);
    await axe(p2, "webhooks");
    await shots(p2, "webhooks-empty");
  }, 120_000);
});
