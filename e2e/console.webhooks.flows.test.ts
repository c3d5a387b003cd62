import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventSeeder, PATH_USD, randomAddress, waitFor, type Receiver, type TestDb } from "../packages/worker/test/helpers.ts";
import { axe, keyboardReachesEverything, shots as screenshots } from "./support/browser.ts";
import { SoftAuthenticator } from "../packages/api/test/support/softAuthenticator.ts";
import { call, registerUser } from "../packages/api/test/support/walletApp.ts";
import { echoVerify, signedInPage, startWebhooksConsole, type WebhooksConsoleEnv } from "./support/webhooksConsole.ts";

// The webhooks console's flows past the happy path (e2e/console.webhooks.test.ts has that one), in real Chromium against
// the real API, PostgreSQL, Redis, the real worker and a loopback receiver, on a ledger whose registry allows two tokens
// of different decimals (6 and 18): the minimum amount typed for one token (exact base units in that token's decimals;
// refused for "any token"), the Copy button (the clipboard holds the secret), the "Webhook created" panel following
// the verification without navigating (and no longer polling once settled), a ledger row written the indexer's way and
// delivered by the worker in the log, Redeliver after a 500, recover since a time, and older deliveries kept across
// the detail page's 3 s refresh. axe, keyboard and screenshots (1280 / 390 px) on each new page state.

const USD6 = PATH_USD;
const ETH18 = "0x20c00000000000000000000000000000000000e1";
const AGENT = { id: "flows-agent", wallet: "0x00000000000000000000000000000000000f1001" };
const QUIET = { id: "flows-quiet-agent", wallet: "0x00000000000000000000000000000000000f1002" }; // recovery: rows from before the webhook
const BUSY = { id: "flows-busy-agent", wallet: "0x00000000000000000000000000000000000f1003" }; // more deliveries than a page
const ONE_ETH = 10n ** 18n;

let env: WebhooksConsoleEnv;
let db: TestDb;
let base: string;
let page: Page;
let receiver: Receiver;
let jar: Record<string, string>;
let seeder: ReturnType<typeof createEventSeeder>;
const pageLog: string[] = [];
/** Verification tokens the "gated" path received and did not echo (the test echoes them when it chooses). */
const gatedTokens = new Map<string, string>();
/** The "flaky" path answers 500 to events while this is true. */
let flakyDown = true;

const shots = (p: Page, name: string) => screenshots(p, `console-${name}`);
const echo = (body: Record<string, unknown>) => echoVerify(base, body);

/** A webhook created through the API (as the CLI does) on a receiver path that echoes the ping, once active. */
async function activeHook(path: string, agentId: string): Promise<{ id: string; secret: string }> {
  const res = await call(base, "POST", "/api/webhooks", {
    jar,
    body: { callback_url: receiver.url(path), label: `${path} hook`, filters: { agent_id: agentId } },
  });
  expect(res.status, res.text).toBe(201);
  receiver.secrets.set(res.body.id, res.body.signing_secret);
  await waitFor(async () => (await call(base, "GET", `/api/webhooks/${res.body.id}`, { jar })).body.status === "active", {
    what: "webhook active",
    timeoutMs: 20_000,
    intervalMs: 200,
  });
  return { id: res.body.id, secret: res.body.signing_secret };
}

const deliveryRows = (p: Page) => p.locator("[data-console=deliveries] tr[data-delivery]");

beforeAll(async () => {
  const entities = [AGENT, QUIET, BUSY].map((a) => ({ id: a.id, label: `Flows ${a.id}`, category: "agent", wallets: [a.wallet] }));
  env = await startWebhooksConsole("console-flows", {
    registry_version: 2,
    network: "devnet",
    tokens: [
      { address: USD6, symbol: "pathUSD", decimals: 6, currency: "USD" },
      { address: ETH18, symbol: "WETHt", decimals: 18, currency: "ETH" },
    ],
    entities,
  });
  ({ db, base, receiver } = env);
  seeder = createEventSeeder(db.pool, [AGENT, QUIET, BUSY]);
  const isVerify = (body: Record<string, unknown>) => body.type === "svc.webhook.verify";
  receiver.overrides.set("hook", (req, res) => {
    if (isVerify(req.body)) void echo(req.body);
    res.writeHead(req.verified === false ? 401 : 204).end();
  });
  receiver.overrides.set("gated", (req, res) => {
    if (isVerify(req.body)) gatedTokens.set(String(req.body.subscription_id), String(req.body.verify_token));
    res.writeHead(req.verified === false ? 401 : 204).end();
  });
  receiver.overrides.set("flaky", (req, res) => {
    if (isVerify(req.body)) {
      void echo(req.body);
      return void res.writeHead(204).end();
    }
    res.writeHead(flakyDown ? 500 : req.verified === false ? 401 : 204).end(flakyDown ? "down" : "");
  });
  jar = (await registerUser(base, new SoftAuthenticator(), "flows owner")).jar;
  // signed in with the cookie the passkey sign-in sets (the wallet console test covers the passkey prompt)
  ({ page } = await signedInPage(env, jar, pageLog, { clipboard: true, timeoutMs: 20_000 }));
}, 180_000);

afterAll(async () => {
  await env?.stop();
  if (process.env.E2E_PAGE_LOG) console.log(pageLog.join("\n"));
}, 60_000);

let tokenHook: { id: string; secret: string };

describe("webhooks console flows", () => {
  it("create with a token: exact 18-decimal minimum, refused for any token; Copy puts the secret on the clipboard; the panel follows verification, then stops asking", async () => {
    await page.goto(`${base}/webhooks`);
    await page.getByRole("button", { name: "New webhook" }).click();
    await page.getByLabel("Endpoint URL").fill(receiver.url("gated"));
    await page.getByLabel(/^Label/).fill("weth hook");
    await page.locator("select[name=agent_id]").selectOption(AGENT.id);
    // the picker lists the allowlist (GraphQL tokens) with each token's decimals
    await expect
      .poll(() => page.locator("select[name=token_address] option").allTextContents())
      .toEqual(["Any token", "pathUSD (6 decimals)", "WETHt (18 decimals)"]);
    await page.getByLabel(/^Minimum amount/).fill("0.5");
    // any token + a minimum: 6 and 18 decimals are not one amount, refused before anything is sent
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toMatch(/Choose a token for a minimum amount: the allowed tokens have different decimals \(pathUSD 6, WETHt 18\)/);
    expect((await call(base, "GET", "/api/webhooks", { jar })).body.items).toEqual([]);
    await axe(page, "webhooks create (token refused)");
    await keyboardReachesEverything(page, "webhooks create (token refused)");
    await shots(page, "webhooks-create-token");

    await page.getByLabel(/^Token/).selectOption(ETH18);
    expect(await page.textContent("[data-console=min-hint]")).toMatch(/in WETHt \(18 decimals\)/);
    const asked: string[] = [];
    page.on("request", (r) => void (r.method() === "GET" && /\/api\/webhooks\/whs_[^/]+$/.test(new URL(r.url()).pathname) && asked.push(r.url())));
    await page.getByRole("button", { name: "Create webhook" }).click();
    const secret = (await page.locator("[data-console=created] [data-console=secret]").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const [hook] = (await call(base, "GET", "/api/webhooks", { jar })).body.items;
    // "0.5" of an 18-decimal token, exactly, and the token filter
    expect(hook.filters).toEqual({ agent_id: AGENT.id, token_address: ETH18, min_amount_wei: "500000000000000000" });
    tokenHook = { id: hook.id, secret };
    receiver.secrets.set(hook.id, secret);
    const row = page.locator(`tr[data-webhook="${hook.id}"]`);
    expect(await row.locator("td[data-label=Filters]").textContent()).toBe("WETHt only, ≥ 0.50 WETHt");

    // Copy: the clipboard holds exactly the secret
    await page.locator("[data-console=created]").getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.locator("[data-console=created] .secret [role=status]").textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    // the ping reached the endpoint, which has not echoed it yet: waiting, in the panel and the list
    await waitFor(() => gatedTokens.get(hook.id), { what: "verification ping", timeoutMs: 20_000 });
    const state = page.locator("[data-console=verify-state]");
    expect(await state.getAttribute("data-state")).toBe("waiting");
    expect(await state.getAttribute("aria-live")).toBe("polite");
    expect(await row.getAttribute("data-status")).toBe("pending_verify");
    await axe(page, "webhook created (waiting)");
    await keyboardReachesEverything(page, "webhook created (waiting)");
    await shots(page, "webhooks-created-waiting");
    const url = page.url();
    // the endpoint echoes the token now: the panel and the list row turn active on their own
    expect((await echo({ subscription_id: hook.id, verify_token: gatedTokens.get(hook.id) })).status).toBe(200);
    await expect.poll(() => state.getAttribute("data-state"), { timeout: 10_000 }).toBe("active");
    expect(await state.textContent()).toMatch(/Verified: your endpoint echoed the token/);
    await expect.poll(() => row.getAttribute("data-status")).toBe("active");
    expect(page.url()).toBe(url);
    expect(asked.length).toBeGreaterThanOrEqual(1);
    // settled: it stops asking
    const askedWhenActive = asked.length;
    await page.waitForTimeout(4_500);
    expect(asked.length).toBe(askedWhenActive);
    await axe(page, "webhook created (active)");
    await keyboardReachesEverything(page, "webhook created (active)");
    await shots(page, "webhooks-created-active");
  }, 60_000);

  it("the created panel says when the verification ping fails (retried), then when the token expired, and what to do", async () => {
    await page.goto(`${base}/webhooks`);
    await page.getByRole("button", { name: "New webhook" }).click();
    await page.getByLabel("Endpoint URL").fill(receiver.url("fail")); // answers 500 to everything
    await page.locator("select[name=agent_id]").selectOption(AGENT.id);
    await page.getByRole("button", { name: "Create webhook" }).click();
    const state = page.locator("[data-console=verify-state]");
    await expect.poll(() => state.getAttribute("data-state"), { timeout: 15_000 }).toBe("retrying");
    expect(await state.textContent()).toMatch(/did not get a 2xx from your endpoint\. It is retried/);
    const id = (await page.locator("[data-console=created] a[href^='/webhooks/']").getAttribute("href"))!.slice("/webhooks/".length);
    expect(await page.locator(`tr[data-webhook="${id}"]`).getAttribute("data-status")).toBe("pending_verify");
    await axe(page, "webhook created (verification failing)");
    await keyboardReachesEverything(page, "webhook created (verification failing)");
    await shots(page, "webhooks-created-failing");
    // 24 h later (moved back in the database): expired, with what to do
    await db.pool.query("UPDATE webhook_subscriptions SET verify_token_expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    await expect.poll(() => state.getAttribute("data-state"), { timeout: 10_000 }).toBe("expired");
    expect(await state.textContent()).toMatch(/Verification expired.*Delete this webhook and create it again/);
    expect((await call(base, "DELETE", `/api/webhooks/${id}`, { jar })).status).toBe(200);
  }, 60_000);

  it("a ledger row the worker delivers appears in the log with a link to its explorer page; the filters in the token's decimals", async () => {
    // written the indexer's way: 1 WETHt (matches), 0.1 WETHt (under the minimum), 1 pathUSD (another token)
    const { ids } = await seeder.insert([
      { from: AGENT.wallet, to: randomAddress(), amount: ONE_ETH, token: ETH18 },
      { from: AGENT.wallet, to: randomAddress(), amount: ONE_ETH / 10n, token: ETH18 },
      { from: AGENT.wallet, to: randomAddress(), amount: 1_000_000n, token: USD6 },
    ]);
    expect(ids).toHaveLength(3);
    await waitFor(() => receiver.forSubscription(tokenHook.id).some((r) => r.body.type === "svc.event.v1"), { what: "event delivery", timeoutMs: 20_000 });
    const events = receiver.forSubscription(tokenHook.id).filter((r) => r.body.type === "svc.event.v1");
    expect(events.map((r) => [String((r.body.data as { id: number }).id), r.verified])).toEqual([[String(ids[0]), true]]);

    await page.goto(`${base}/webhooks/${tokenHook.id}`);
    const link = page.locator(`[data-console=deliveries] a[href="/events/${ids[0]}"]`);
    await expect.poll(() => link.count(), { timeout: 10_000 }).toBe(1);
    const row = page.locator("[data-console=deliveries] tr[data-delivery]", { has: page.locator(`a[href="/events/${ids[0]}"]`) });
    await expect.poll(() => row.getAttribute("data-status")).toBe("succeeded");
    expect(await row.locator("td[data-label='Last HTTP']").textContent()).toBe("204");
    expect(await page.locator(`[data-console=deliveries] a[href="/events/${ids[1]}"], [data-console=deliveries] a[href="/events/${ids[2]}"]`).count()).toBe(0);
    expect(await page.locator(".console-facts dd").nth(1).textContent()).toBe("WETHt only, ≥ 0.50 WETHt");
    await axe(page, "webhook detail (ledger row)");
    await keyboardReachesEverything(page, "webhook detail (ledger row)");
    await shots(page, "webhook-detail-row");
    await link.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/events/${ids[0]}`);
  }, 60_000);

  it("a delivery the receiver answered 500 is retrying: Redeliver, once the receiver is back, makes it succeed", async () => {
    const hook = await activeHook("flaky", AGENT.id);
    flakyDown = true;
    await page.goto(`${base}/webhooks/${hook.id}`);
    await page.getByRole("button", { name: "Send test event" }).click();
    const row = page.locator("[data-console=deliveries] tr[data-delivery]", { hasText: "test" });
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 15_000 }).toBe("retrying");
    expect(await row.locator("td[data-label='Last HTTP']").textContent()).toBe("500");
    const redeliver = row.getByRole("button", { name: "Redeliver" });
    expect(await redeliver.count()).toBe(1);
    await axe(page, "webhook detail (retrying)");
    await keyboardReachesEverything(page, "webhook detail (retrying)");
    await shots(page, "webhook-detail-retrying");

    const deliveryId = (await row.getAttribute("data-delivery"))!;
    const attempts = () => receiver.forSubscription(hook.id).filter((r) => r.headers["svc-delivery"] === deliveryId);
    expect(attempts()).toHaveLength(1);
    flakyDown = false;
    await redeliver.click(); // the scheduled retry is 30 s away: this attempt is the button's
    await expect.poll(() => page.textContent("[data-console=message]")).toBe("Redelivery queued.");
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 10_000 }).toBe("succeeded");
    expect(attempts().map((r) => r.verified)).toEqual([true, true]);
    expect(await row.locator("td[data-label=Attempts]").textContent()).toBe("2");
    expect(await row.locator("td[data-label='Last HTTP']").textContent()).toBe("204");
    expect(await row.getByRole("button", { name: "Redeliver" }).count()).toBe(0);
  }, 60_000);

  it("recover since a time: rows recorded before the webhook existed get deliveries, and the page states the API's counts", async () => {
    const { ids } = await seeder.insert([1n, 2n, 3n].map((n) => ({ from: QUIET.wallet, to: randomAddress(), amount: n * 1_000_000n })));
    const hook = await activeHook("hook", QUIET.id);
    await page.goto(`${base}/webhooks/${hook.id}`);
    await expect.poll(() => deliveryRows(page).count()).toBe(1); // the verification ping only: the rows predate it
    // ten minutes ago, in the browser's own time zone (datetime-local)
    const since = await page.evaluate(() => {
      const d = new Date(Date.now() - 10 * 60_000 - new Date().getTimezoneOffset() * 60_000);
      return d.toISOString().slice(0, 16);
    });
    await page.getByLabel("Recover missed events since").fill(since);
    const answer = page.waitForResponse((r) => r.url().endsWith(`/api/webhooks/${hook.id}/recover`));
    await page.getByRole("button", { name: "Recover" }).click();
    const json = await (await answer).json();
    expect(json).toMatchObject({ matched_events: 3, deliveries_created: 3 });
    await expect
      .poll(() => page.textContent("[data-console=message]"))
      .toBe(`Recovery: ${json.matched_events} matching rows, ${json.deliveries_created} new deliveries.`);
    for (const id of ids) {
      const row = page.locator("[data-console=deliveries] tr[data-delivery]", { has: page.locator(`a[href="/events/${id}"]`) });
      await expect.poll(() => row.getAttribute("data-status"), { timeout: 15_000 }).toBe("succeeded");
    }
    expect(
      receiver
        .forSubscription(hook.id)
        .filter((r) => r.body.type === "svc.event.v1")
        .map((r) => String((r.body.data as { id: number }).id))
        .sort(),
    ).toEqual(ids.map(String).sort());
    await axe(page, "webhook detail (recovered)");
    await keyboardReachesEverything(page, "webhook detail (recovered)");
    await shots(page, "webhook-detail-recovered");
    // again: idempotent, the message says nothing new was made
    const again = page.waitForResponse((r) => r.url().endsWith(`/api/webhooks/${hook.id}/recover`));
    await page.getByRole("button", { name: "Recover" }).click();
    expect(await (await again).json()).toMatchObject({ matched_events: 3, deliveries_created: 0 });
    await expect.poll(() => page.textContent("[data-console=message]")).toBe("Recovery: 3 matching rows, 0 new deliveries.");
  }, 60_000);

  it("older deliveries the user loaded stay across the 3 s refresh, and newer ones come in on top without duplicates", async () => {
    const hook = await activeHook("hook", BUSY.id);
    const pay = (n: number) =>
      seeder.insert(Array.from({ length: n }, (_, i) => ({ from: BUSY.wallet, to: randomAddress(), amount: BigInt(i + 1) * 1_000_000n })));
    const first = await pay(24); // + the verification ping: 25 deliveries, more than one page of 20
    await waitFor(() => receiver.forSubscription(hook.id).filter((r) => r.body.type === "svc.event.v1").length === 24, {
      what: "24 deliveries",
      timeoutMs: 30_000,
    });
    await page.goto(`${base}/webhooks/${hook.id}`);
    await expect.poll(() => deliveryRows(page).count()).toBe(20);
    await page.getByRole("button", { name: "Load older deliveries" }).click();
    await expect.poll(() => deliveryRows(page).count()).toBe(25);
    const oldest = await deliveryRows(page).evaluateAll((rows) => rows.slice(20).map((r) => (r as HTMLElement).dataset.delivery));
    // two refreshes later, the older rows are still there
    await page.waitForTimeout(6_500);
    expect(await deliveryRows(page).count()).toBe(25);
    for (const id of oldest) expect(await page.locator(`tr[data-delivery="${id}"]`).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Load older deliveries" }).count()).toBe(0); // all 25 are shown

    // new rows: on top at the next refresh, nothing lost or doubled
    const more = await pay(2);
    await expect.poll(() => deliveryRows(page).count(), { timeout: 15_000 }).toBe(27);
    const shownIds = await deliveryRows(page).evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.delivery));
    expect(new Set(shownIds).size).toBe(27);
    const events = await deliveryRows(page).evaluateAll((rows) =>
      rows.map((r) => r.querySelector("a[href^='/events/']")?.getAttribute("href")?.slice(8) ?? null),
    );
    expect(events.slice(0, 2).sort()).toEqual(more.ids.map(String).sort());
    expect(events.filter((e) => e !== null).sort()).toEqual([...first.ids, ...more.ids].map(String).sort());
    await axe(page, "webhook detail (older loaded)");
    await keyboardReachesEverything(page, "webhook detail (older loaded)");
    await shots(page, "webhook-detail-older");
  }, 60_000);
});
