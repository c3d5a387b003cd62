// The webhooks console's browser tests share one environment: a test database with a registry, the real API (wallet
// and webhooks on), a loopback receiver that verifies signatures, the real worker, Debian Chromium; and a browser
// page signed in with the passkey session cookie an owner's sign-in sets (the wallet console tests cover the prompt).
import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { pino } from "pino";
import type { RunningWorker } from "../../packages/worker/src/startWorker.ts";
import {
  deletePrefixKeys,
  masterKey,
  setupDb,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  type Receiver,
  type TestDb,
} from "../../packages/worker/test/helpers.ts";
import { buildApp, type App } from "../../packages/api/src/buildApp.ts";
import { freePort, launchChromium } from "./browser.ts";
import { TEST_RATE_LIMITS } from "../../packages/api/test/support/walletApp.ts";

export interface WebhooksConsoleEnv {
  db: TestDb;
  app: App;
  base: string;
  receiver: Receiver;
  worker: RunningWorker;
  browser: Browser;
  stop(): Promise<void>;
}

/** Starts everything; `registry` is loaded before the API starts (its agents are what a webhook can name). */
export async function startWebhooksConsole(name: string, registry: unknown): Promise<WebhooksConsoleEnv> {
  const db = await setupDb();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(registry), `registry:${name}.json`);
  await registryDb.end();
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const app = buildApp({
    pool: db.pool,
    log: pino({ level: "silent" }),
    webhooks: { masterKey, production: false },
    wallet: { masterKey, production: false, publicBaseUrl: base, rpId: "localhost", ...TEST_RATE_LIMITS() },
  });
  await app.start(port, "127.0.0.1");
  const receiver = await startReceiver();
  const prefix = uniquePrefix(name);
  const worker = await startTestWorker(db, { prefix, metricsPort: -1 });
  const browser = await launchChromium();
  return {
    db,
    app,
    base,
    receiver,
    worker,
    browser,
    async stop() {
      await browser.close().catch(() => {});
      await worker.stop(1_000).catch(() => {});
      await app.stop().catch(() => {});
      await receiver.close();
      await deletePrefixKeys(prefix);
      await db.drop();
    },
  };
}

/** A 1280 px page signed in with `jar` (the passkey session cookie); confirm dialogs accepted; console and errors into `pageLog`. */
export async function signedInPage(
  env: WebhooksConsoleEnv,
  jar: Record<string, string>,
  pageLog: string[],
  opts: { clipboard?: boolean; timeoutMs?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(opts.timeoutMs ?? 30_000);
  if (opts.clipboard) await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.base });
  await context.addCookies(Object.entries(jar).map(([name, value]) => ({ name, value, url: env.base })));
  const page = await context.newPage();
  page.on("console", (m) => void pageLog.push(`[console.${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => void pageLog.push(`[pageerror] ${e.message}`));
  page.on("dialog", (d) => void d.accept());
  return { context, page };
}

/** A receiver handler's answer to the verification ping: echo its token to the API, as docs/webhooks.md asks. */
export const echoVerify = (base: string, body: Record<string, unknown>) =>
  fetch(`${base}/api/webhooks/${body.subscription_id}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ verify_token: body.verify_token }),
  });
