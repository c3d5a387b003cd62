import path from "node:path";
import { formatTokenUnits } from "@agent-ledger/core";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { createDevnetClient, sendBulkTransfers } from "@agent-ledger/devnet";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { pino } from "pino";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";
import { axe as axePage, freePort, keyboardReachesEverything as keyboardWalk, launchChromium, SHOTS } from "./support/browser.ts";
import { docScreenshot } from "./support/docScreenshot.ts";
import { gql } from "../packages/api/test/support/http.ts";
import { indexAll, seedDevnetLedger, type SeededLedger } from "../packages/api/test/support/seedDevnetLedger.ts";

// The public explorer in real Chromium (Debian's, driven by playwright-core) against the real API on a ledger the
// real indexer built from devnet payments spread over 40 days (gateway providers included). Pages must show what
// the public GraphQL API answers; live rows arrive over graphql-sse and survive an API restart; axe finds no
// serious or critical problem; every control is reachable by keyboard. Screenshots of every page at 1280 and 390 px
// go to packages/web/screenshots/ (git-ignored) for a reviewer to look at.

const FEED = { enabled: true, heartbeatMs: 500, pollMs: 200, retryMs: 100 };
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let seeded: SeededLedger;
let pool: pg.Pool;
let sql: pg.Client;
let app: App;
let port: number;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

async function startApi(): Promise<App> {
  const a = buildApp({ pool, log, dashboardCacheTtlMs: 0, feed: FEED });
  await a.start(port);
  return a;
}

const count = (n: number) => n.toLocaleString("en-US");
const amount = (s: string) => formatTokenUnits(s, { group: true });
const data = async (query: string, variables?: Record<string, unknown>) => {
  const res = await gql(base, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
};

/** One real payment from a demo agent to a direct service, indexed; returns the new rows' ids. */
async function payOnce(): Promise<{ ids: string[]; agentId: string }> {
  const {
    rows: [before],
  } = await sql.query("SELECT coalesce(max(id), 0)::text AS id FROM agent_events");
  const agent = seeded.keys.agents[1]!;
  await sendBulkTransfers({
    rpcUrl: seeded.anvil.url,
    count: 1,
    senders: [agent.privateKey],
    recipients: [seeded.keys.directServices[0]!.address],
    withMemo: false,
    batchSize: 1,
    timeoutMs: 60_000,
  });
  await indexAll(db.url, seeded.anvil.url, await createDevnetClient({ url: seeded.anvil.url }).getBlockNumber({ cacheTime: 0 }));
  const { rows } = await sql.query("SELECT id::text AS id FROM agent_events WHERE id > $1 AND methodology_version = 'v0.1' ORDER BY id", [before.id]);
  return { ids: rows.map((r) => r.id as string), agentId: agent.id };
}

async function shot(name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.waitForTimeout(150); // charts follow their box
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    if (width === 390) await page.screenshot({ path: path.join(SHOTS, `${name}-390-first-screen.png`) }); // what a phone shows first
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const axe = (name: string) => axePage(page, name);
const keyboardReachesEverything = (name: string) => keyboardWalk(page, name);

const liveState = () => page.locator("[data-live-state]").first().getAttribute("data-live-state");

beforeAll(async () => {
  db = await createTestDatabase();
  seeded = await seedDevnetLedger(db.url);
  pool = createPgPool(db.url, { max: 5, applicationName: "e2e-explorer" });
  pool.on("error", () => {});
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await startApi();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
  page.on("pageerror", (e) => {
    if (process.env.E2E_DEBUG) console.log(`[browser pageerror] ${e.message}`);
    pageErrors.push(e.message);
  });
  page.on("console", (m) => {
    if (process.env.E2E_DEBUG) console.log(`[browser ${m.type()}] ${m.text()}`);
    if (m.type() === "error" && /Content Security Policy|Refused/.test(m.text())) pageErrors.push(m.text());
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sql?.end();
  await pool?.end();
  await seeded?.stop();
  await db?.drop();
});

type TokenAmount = { tokenAddress: string; symbol: string | null; decimals: number | null; amountSumWei: string };
/** Each token's amount in its own decimals, exactly as GraphQL's `byToken` says, with its symbol. */
const tokenUnits = (t: TokenAmount) => formatTokenUnits(t.amountSumWei, { decimals: t.decimals ?? 0, minFraction: t.decimals === null ? 0 : 2, group: true });

/** The volume card shows `byToken` (v0.2): one token → amount + symbol; several → one line per token; none → the total. */
async function expectVolume(d: { amountSumWei: string; byToken: TokenAmount[] }): Promise<void> {
  const value = page.locator('[data-figure="volume"]');
  const lines = page.locator(".figure-tokens [data-token]");
  if (d.byToken.length === 0) {
    expect(await value.textContent()).toBe(amount(d.amountSumWei));
    expect(await lines.count()).toBe(0);
  } else if (d.byToken.length === 1) {
    expect(await value.textContent()).toBe(tokenUnits(d.byToken[0]!));
    expect(await page.locator('[data-figure-unit="volume"]').textContent()).toBe(d.byToken[0]!.symbol);
    expect(await lines.count()).toBe(0);
  } else {
    const shown = await lines.evaluateAll((lis) => lis.map((li) => ({ token: (li as HTMLElement).dataset.token, text: li.textContent })));
    expect(shown).toEqual(d.byToken.map((t) => ({ token: t.tokenAddress, text: `${tokenUnits(t)} ${t.symbol}` })));
  }
}

describe("dashboard", () => {
  it("shows the GraphQL figures of each window, the window is in the URL, and switching changes the figures", async () => {
    const res = await page.goto(`${base}/`);
    expect(res!.status()).toBe(200);
    expect(await page.title()).toContain("Agent Ledger");
    for (const w of ["24h", "7d", "30d", "all"]) {
      if (w !== "24h")
        await page
          .getByRole("group", { name: "Time window" })
          .getByText(w === "all" ? "All" : w, { exact: true })
          .click();
      await page.locator(`[data-window="${w}"]`).waitFor();
      if (w !== "24h") expect(new URL(page.url()).searchParams.get("window")).toBe(w);
      const { dashboard: d } = await data(
        `query($w: String!) { dashboard(window: $w) { txCount amountSumWei agentsActive providersDetected byToken { tokenAddress symbol decimals amountSumWei } } }`,
        { w },
      );
      await expect.poll(() => page.locator('[data-figure="Payments"]').textContent()).toBe(count(d.txCount));
      await expectVolume(d);
      expect(await page.locator('[data-figure="Active agents"]').textContent()).toBe(count(d.agentsActive));
      expect(await page.locator('[data-figure="Providers detected"]').textContent()).toBe(count(d.providersDetected));
    }
    const day = (await data(`{ dashboard(window: "24h") { txCount } }`)).dashboard.txCount;
    const all = (await data(`{ dashboard(window: "all") { txCount } }`)).dashboard.txCount;
    expect(all).toBeGreaterThan(day); // the switch really changed what is shown
    await page.goto(`${base}/?window=7d`); // shareable
    await page.locator('[data-window="7d"]').waitFor();
    await page.locator(".chart canvas").first().waitFor();
    await page.locator('[data-live-state="live"]').waitFor();
    await shot("dashboard");
    await docScreenshot(page, "explorer"); // the README's picture, with UPDATE_SCREENSHOTS=1
    await axe("dashboard");
    await keyboardReachesEverything("dashboard");
  }, 180_000); // four windows, axe and a Tab walk: over a minute when the two shared cores are busy
});

describe("search", () => {
  it("jumps to the row of an exact tx hash and to an agent by id, with the `/` shortcut", async () => {
    const {
      rows: [ev],
    } = await sql.query(
      "SELECT min(id)::text AS id, tx_hash FROM agent_events WHERE methodology_version = 'v0.1' GROUP BY tx_hash ORDER BY min(id) DESC LIMIT 1",
    );
    await page.goto(`${base}/services`);
    await page.locator('[data-page="services"] table').waitFor();
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("search-q");
    await page.keyboard.type(ev.tx_hash);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base}/events/${ev.id}`);
    await page.locator('[data-page="event"]').waitFor();
    expect(await page.locator(".facts").textContent()).toContain(ev.tx_hash);

    const agent = seeded.registry.entities.find((e) => e.category === "agent" && e.active)!;
    await page.locator("#search-q").fill(agent.id);
    await page.locator("#search-q").press("Enter");
    await page.waitForURL(`${base}/agents/${agent.id}`);
    await page.locator('[data-page="agent"] h1').waitFor();
    expect(await page.locator("h1").textContent()).toBe(agent.label);

    await page.locator("#search-q").fill(agent.label.slice(0, 5));
    await page.locator("#search-q").press("Enter");
    await page
      .getByRole("region", { name: /Search results/ })
      .getByRole("link", { name: agent.label })
      .waitFor();
    await axe("search results");
  });
});

describe("pages", () => {
  it("entity, event and provider pages show the API's numbers; lists sort; each page passes axe and the keyboard check", async () => {
    const gateway = seeded.registry.entities.find((e) => e.id.endsWith("-mpp") && e.category === "gateway")!;
    const { service } = await data(
      `query($id: ID!) { service(id: $id) { totals { txCount amountSumWei } providers(first: 100) { items { key label txCount amountSumWei } } } }`,
      { id: gateway.id },
    );
    await page.goto(`${base}/services/${gateway.id}`);
    await page.locator('[data-figure="total-payments"]').waitFor();
    expect(await page.locator('[data-figure="total-payments"]').textContent()).toBe(count(service.totals.txCount));
    expect(await page.locator('[data-figure="total-volume"]').textContent()).toBe(amount(service.totals.amountSumWei));
    expect(service.providers.items.length).toBeGreaterThan(0);
    for (const p of service.providers.items)
      await page
        .getByRole("link", { name: p.label ?? p.key.slice(0, 8) })
        .first()
        .waitFor();
    await shot("service-gateway");
    await axe("service");
    await keyboardReachesEverything("service");

    const p = service.providers.items[0];
    await page.getByRole("link", { name: p.label }).first().click();
    await page.locator('[data-figure="provider-payments"]').waitFor();
    const { provider } = await data(`query($k: String!) { provider(key: $k) { txCount amountSumWei } }`, { k: p.key });
    expect(await page.locator('[data-figure="provider-payments"]').textContent()).toBe(count(provider.txCount));
    expect(await page.locator('[data-figure="provider-volume"]').textContent()).toBe(amount(provider.amountSumWei));
    await shot("provider");
    await axe("provider");

    const agent = seeded.registry.entities.find((e) => e.category === "agent" && e.active)!;
    const { agent: a } = await data(`query($id: ID!) { agent(id: $id) { totals { txCount amountSumWei } recentEvents(first: 50) { items { id } } } }`, {
      id: agent.id,
    });
    await page.goto(`${base}/agents/${agent.id}`);
    await page.locator('[data-figure="total-payments"]').waitFor();
    expect(await page.locator('[data-figure="total-payments"]').textContent()).toBe(count(a.totals.txCount));
    expect(await page.locator("[data-event-id]").count()).toBe(a.recentEvents.items.length);
    await shot("agent");
    await axe("agent");

    const evId = a.recentEvents.items[0].id;
    const { event } = await data(`query($id: ID!) { event(id: $id) { amountWei txHash logIndex sourceBlock methodologyVersion relatedEvents { id } } }`, {
      id: evId,
    });
    await page.locator(`[data-event-id="${evId}"] a[href="/events/${evId}"]`).click();
    await page.locator('[data-page="event"] .facts').waitFor();
    const facts = (await page.locator(".facts").textContent())!;
    for (const s of [amount(event.amountWei), event.txHash, String(event.sourceBlock), event.methodologyVersion]) expect(facts).toContain(s);
    await shot("event");
    await axe("event");
    await keyboardReachesEverything("event");

    const { agents } = await data(`{ agents { id txCount7d amountSumWei7d } }`);
    await page.goto(`${base}/agents?sort=txCount7d&dir=desc`);
    await page.locator("[data-page=agents] tbody tr").first().waitFor();
    const order = await page.locator("[data-page=agents] tbody tr").evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.id));
    const expected = [...agents]
      .sort((x: { txCount7d: number; id: string }, y: { txCount7d: number; id: string }) => y.txCount7d - x.txCount7d || x.id.localeCompare(y.id))
      .map((x: { id: string }) => x.id);
    expect(order).toEqual(expected);
    await page.getByRole("link", { name: /Payments 7 d/ }).click();
    await page.waitForURL(/dir=asc/);
    const asc = await page.locator("[data-page=agents] tbody tr").evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.id));
    expect(asc[0]).toBe(
      [...agents].sort((x: { txCount7d: number; id: string }, y: { txCount7d: number; id: string }) => x.txCount7d - y.txCount7d || x.id.localeCompare(y.id))[0]
        .id,
    );
    await shot("agents");
    await axe("agents");
    await keyboardReachesEverything("agents");
    await page.goto(`${base}/services`);
    await page.locator("[data-page=services] tbody tr").first().waitFor();
    await shot("services");
    await axe("services");
  }, 240_000); // six pages with axe and Tab walks

  it("unknown ids and paths are HTTP 404 with the not-found page", async () => {
    for (const p of [
      "/agents/no-such-agent",
      "/services/no-such-mpp",
      "/events/999999999",
      "/providers/0x00000000000000000000000000000000000b0b00",
      "/no/such/page",
    ]) {
      const res = await page.goto(`${base}${p}`);
      expect(res!.status(), p).toBe(404);
      await page.locator('[data-page="not-found"]').waitFor();
      expect(await page.title()).toBe("Not found — Agent Ledger");
    }
    await shot("not-found");
    await axe("not-found");
  });

  it("GraphiQL loads from our own bundle (no CDN, no CSP error) and runs a live subscription", async () => {
    const external: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith("blob:") && !r.url().startsWith("data:")) external.push(r.url());
    });
    await page.goto(`${base}/graphql?query=${encodeURIComponent("subscription { ledgerEvents { id agentId amountWei } }")}`);
    await page.locator(".graphiql-container").first().waitFor({ timeout: 30_000 });
    await page.locator(".graphiql-editor .view-lines").first().getByText("ledgerEvents").waitFor(); // the query from ?query=
    await page.locator(".graphiql-execute-button").click();
    await page.waitForTimeout(1500); // the subscription is open (graphql-sse)
    const { ids } = await payOnce();
    await expect.poll(() => page.locator(".graphiql-response").first().textContent(), { timeout: 30_000 }).toContain(`"${ids.at(-1)}"`);
    await shot("graphiql");
    expect(external).toEqual([]);
    await page.goto("about:blank");
  });
});

describe("live", () => {
  it("a devnet payment appears in the dashboard feed and on the agent's page without a reload", async () => {
    await page.goto(`${base}/`);
    await page.locator('[data-live-state="live"]').waitFor();
    const agentPage = await context.newPage();
    const agentId = seeded.keys.agents[1]!.id;
    await agentPage.goto(`${base}/agents/${agentId}`);
    await agentPage.locator('[data-live-state="live"]').waitFor();
    const { ids } = await payOnce();
    const { rows } = await sql.query("SELECT id::text AS id FROM agent_events WHERE id = ANY($1::int8[]) AND agent_id = $2", [ids, agentId]);
    expect(rows.length).toBeGreaterThan(0);
    for (const id of ids) await page.locator(`.feed [data-event-id="${id}"]`).waitFor({ timeout: 15_000 });
    await agentPage.locator(`[data-event-id="${rows[0].id}"]`).waitFor({ timeout: 15_000 });
    await agentPage.close();
  });

  it("pause holds rows back; after the API restarts the page reconnects and shows the rows it missed", async () => {
    await page.getByRole("button", { name: "Pause" }).click();
    const held = await payOnce();
    await page.waitForTimeout(1500);
    expect(await page.locator(`.feed [data-event-id="${held.ids[0]}"]`).count()).toBe(0);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.locator(`.feed [data-event-id="${held.ids[0]}"]`).waitFor();

    await app.stop();
    await expect.poll(liveState, { timeout: 15_000 }).toBe("reconnecting");
    const missed = await payOnce(); // indexed while the API is down
    app = await startApi();
    await expect.poll(liveState, { timeout: 20_000 }).toBe("live");
    for (const id of missed.ids) await page.locator(`.feed [data-event-id="${id}"]`).waitFor({ timeout: 15_000 });
    const shown = await page.locator(".feed [data-event-id]").evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.eventId));
    expect(new Set(shown).size).toBe(shown.length); // no duplicate
  });

  it("shows a banner while the API is down", async () => {
    await page.goto(`${base}/agents`);
    await page.locator("[data-page=agents] tbody tr").first().waitFor();
    await app.stop();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Services", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "not answering" }).waitFor();
    await shot("api-down");
    app = await startApi();
    // the page probes the API and loads again on its own once it answers
    await page.locator("[data-page=services] tbody tr").first().waitFor({ timeout: 15_000 });
    expect(await page.getByRole("alert").filter({ hasText: "not answering" }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
