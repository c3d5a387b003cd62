import { formatTokenUnits, matchLogsV02, parseRegistry, TRANSFER_TOPIC, type RawLog } from "@agent-ledger/core";
import { createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import type { Browser, Page } from "playwright-core";
import { pino } from "pino";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../src/buildApp.ts";
import { axe, launchChromium, shots } from "./support/browser.ts";
import { gql } from "./support/http.ts";

// The explorer on a methodology v0.2 ledger whose registry allows two tokens of different decimals (6 and 18): every
// amount is written in its own token's decimals with its symbol, exactly as the public GraphQL API answers, and raw
// units of the two tokens are never added up (no total, no summed volume column; the volume chart has one series per token). The footer names each
// token's decimals. Real PostgreSQL, the indexer's own write path (matchLogsV02 → prepareBatch → writeBatch), the
// real API, Debian Chromium.

const USD6 = "0x20c0000000000000000000000000000000000000";
const ETH18 = "0x20c00000000000000000000000000000000000e1";
const AGENT = "0x00000000000000000000000000000000000a6e01";
const SHOP = "0x00000000000000000000000000000000000005b0";
const registry = {
  registry_version: 2,
  network: "devnet",
  tokens: [
    { address: USD6, symbol: "pathUSD", decimals: 6, currency: "USD" },
    { address: ETH18, symbol: "WETHt", decimals: 18, currency: "ETH" },
  ],
  entities: [
    { id: "two-token-agent", label: "Two-token agent", category: "agent", wallets: [AGENT] },
    { id: "shop-mpp", label: "Shop", category: "commerce", wallets: [SHOP] },
  ],
};
// amounts chosen so that a float or a 6-decimal formatting of the 18-decimal token would show different digits
const PAYMENTS: [token: string, amount: bigint][] = [
  [USD6, 1_250_000n], // 1.25 pathUSD
  [USD6, 123_456_789_012n], // 123,456.789012 pathUSD
  [ETH18, 1_000_000_000_000_000_001n], // 1.000000000000000001 WETHt
  [ETH18, 2_500_000_000_000_000_000n], // 2.5 WETHt
];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let app: App;
let base: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const data = async (query: string, variables?: Record<string, unknown>) => {
  const res = await gql(base, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
};
const decimalsOf = (token: string) => (token === USD6 ? 6 : 18);
const symbolOf = (token: string) => (token === USD6 ? "pathUSD" : "WETHt");
const exact = (units: string, token: string) => `${formatTokenUnits(units, { decimals: decimalsOf(token), group: true })} ${symbolOf(token)}`;

beforeAll(async () => {
  db = await createTestDatabase();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(registry), "registry:two-tokens.json");
  const ctx = await loadMatchContext(registryDb, "https://explore.test");
  await registryDb.end();
  const now = Math.floor(Date.now() / 1000);
  const pad = (a: string) => `0x${a.slice(2).padStart(64, "0")}`;
  const logs: RawLog[] = PAYMENTS.map(([token, amount], i) => ({
    blockNumber: BigInt(i + 1),
    blockHash: `0x${(i + 1).toString(16).padStart(64, "b")}`,
    blockTimestamp: now - 3600 * (i + 1),
    txHash: `0x${(i + 1).toString(16).padStart(64, "7")}`,
    txIndex: 0,
    logIndex: 0,
    address: token,
    topics: [TRANSFER_TOPIC, pad(AGENT), pad(SHOP)],
    data: `0x${amount.toString(16).padStart(64, "0")}`,
  }));
  const writer = new pg.Client({ connectionString: db.url });
  await writer.connect();
  await writer.query("INSERT INTO rollups_version (id, methodology_version) VALUES (true, 'v0.2') ON CONFLICT (id) DO UPDATE SET methodology_version = 'v0.2'");
  await writeBatch(writer, { streamId: "two-tokens", chainId: 31337, startBlock: 1n, previousBlock: 0n, toBlock: BigInt(logs.length), toBlockHash: logs.at(-1)!.blockHash, prepared: prepareBatch(logs, matchLogsV02(logs, ctx)) });
  await writer.end();
  pool = createPgPool(db.url, { max: 4, applicationName: "e2e-explorer-tokens" });
  app = buildApp({ pool, log: pino({ level: "silent" }), methodologyVersion: "v0.2", dashboardCacheTtlMs: 0, feed: { enabled: false } });
  base = await app.start(0);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (e) => pageErrors.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await pool?.end();
  await db?.drop();
});

describe("explorer with two tokens of different decimals", () => {
  it("the API lists both tokens and splits the dashboard by token", async () => {
    const { tokens, dashboard } = await data(`{ tokens { address symbol decimals } dashboard(window: "24h") { txCount byToken { tokenAddress amountSumWei } } }`);
    expect(tokens).toEqual([
      { address: USD6, symbol: "pathUSD", decimals: 6 },
      { address: ETH18, symbol: "WETHt", decimals: 18 },
    ]);
    expect(dashboard.txCount).toBe(PAYMENTS.length);
    expect(dashboard.byToken.map((t: { tokenAddress: string }) => t.tokenAddress).sort()).toEqual([USD6, ETH18]);
  });

  it("dashboard: one exact line per token, no cross-token total, rows in their own decimals, footer per token", async () => {
    const { dashboard: d } = await data(`{ dashboard(window: "24h") { byToken { tokenAddress symbol decimals amountSumWei } recentEvents { id amountWei tokenAddress }
      topServices { byToken { tokenAddress amountSumWei } } topAgents { byToken { tokenAddress amountSumWei } } } }`);
    await page.goto(`${base}/`);
    await page.locator('[data-window="24h"]').waitFor();
    const lines = await page.locator(".figure-tokens [data-token]").evaluateAll((lis) => lis.map((li) => ({ token: (li as HTMLElement).dataset.token, text: li.textContent })));
    expect(lines).toEqual(d.byToken.map((t: { tokenAddress: string; amountSumWei: string }) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })));
    expect(await page.locator('[data-figure="volume"]').textContent()).toBe("2 tokens"); // not a sum of raw units
    // feed rows: each amount in its token's decimals with its symbol
    expect(d.recentEvents.length).toBeGreaterThan(0);
    for (const r of d.recentEvents as { id: string; amountWei: string; tokenAddress: string }[]) {
      expect(await page.locator(`.feed [data-event-id="${r.id}"] .c-amt`).textContent()).toBe(exact(r.amountWei, r.tokenAddress));
    }
    // rankings: each row's volume is one exact line per token (the API's TopEntity.byToken), never a sum across tokens
    for (const [title, rows] of [["Top services", d.topServices], ["Top agents", d.topAgents]] as const) {
      const cells = page.locator(".top-table", { has: page.getByRole("heading", { name: title, exact: true }) }).locator("tbody td:nth-child(3)");
      await cells.first().waitFor();
      const shown = await cells.evaluateAll((tds) => tds.map((td) => [...td.querySelectorAll<HTMLElement>("[data-token]")].map((x) => ({ token: x.dataset.token, text: x.textContent }))));
      const expected = (rows as { byToken: { tokenAddress: string; amountSumWei: string }[] }[]).map((r) => r.byToken.map((t) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })));
      expect(expected.flat().length).toBe(2);
      expect(shown).toEqual(expected);
      // and each amount's digits stay on one line (an 18-decimal amount once broke digit by digit in these cards)
      const digitLines = await cells.evaluateAll((tds) => tds.flatMap((td) => [...td.querySelectorAll<HTMLElement>("[data-token]")].map((x) => {
        const range = document.createRange();
        range.selectNodeContents(x.firstChild!);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      })));
      expect(digitLines).toEqual(expected.flat().map(() => 1));
    }
    // the volume chart: one series per token (no sum of raw units), its legend exact in each token's units
    const { activitySeries: series } = await data(`{ activitySeries(window: "24h") { bucket points { t byToken { tokenAddress amountSumWei } } } }`);
    const chart = page.locator("figure.chart", { has: page.locator(".chart-title", { hasText: /^Volume/ }) });
    expect(await page.locator(".chart-note").count()).toBe(0);
    expect(await chart.getAttribute("data-series")).toBe("2");
    expect(await chart.locator(".u-over").count()).toBe(1); // drawn
    const legend = () => chart.locator(".chart-token").evaluateAll((xs) => xs.map((x) => ({ token: (x as HTMLElement).dataset.token, text: x.textContent })));
    expect(await legend()).toEqual(d.byToken.map((t: { tokenAddress: string }) => t.tokenAddress).sort((a: string, b: string) => (a === USD6 ? -1 : b === USD6 ? 1 : 0)).map((token: string) => ({
      token, text: exact(d.byToken.find((t: { tokenAddress: string }) => t.tokenAddress === token).amountSumWei, token) })));
    // hover the bucket of the largest pathUSD payment: the legend equals that bucket of the GraphQL series, per token
    type Point = { t: string; byToken: { tokenAddress: string; amountSumWei: string }[] };
    const target = (series.points as Point[]).find((p) => p.byToken.some((t) => t.tokenAddress === USD6 && t.amountSumWei === "123456789012"))!;
    expect(target).toBeDefined();
    const over = (await chart.locator(".u-over").boundingBox())!;
    let hovered: string | null = null;
    for (let x = over.x + 1; x < over.x + over.width && hovered !== target.t; x += 3) {
      await page.mouse.move(x, over.y + over.height / 2);
      hovered = await chart.locator(".chart-legend time").getAttribute("datetime", { timeout: 1000 }).catch(() => null);
    }
    expect(hovered).toBe(target.t);
    expect(await legend()).toEqual([USD6, ETH18].map((token) => ({ token, text: exact(target.byToken.find((t) => t.tokenAddress === token)?.amountSumWei ?? "0", token) })));
    await page.mouse.move(0, 0);
    await axe(page, "dashboard with two tokens");
    await shots(page, "tokens-dashboard");
    expect(await page.locator(".foot [data-units]").textContent()).toBe("Amounts are shown exactly, each in its own token's units (pathUSD 6 decimals, WETHt 18 decimals)");
  });

  it("event and agent pages write each amount in its token's decimals; the agent's total is one line per token", async () => {
    const { agent } = await data(`{ agent(id: "two-token-agent") { totals { txCount byToken { tokenAddress amountSumWei } } recentEvents(first: 50) { items { id amountWei tokenAddress } }
      byToken24h { tokenAddress amountSumWei } byToken7d { tokenAddress amountSumWei } } }`);
    const big = (agent.recentEvents.items as { id: string; amountWei: string; tokenAddress: string }[]).find((r) => r.tokenAddress === ETH18)!;
    await page.goto(`${base}/events/${big.id}`);
    await page.locator('[data-page="event"] .facts').waitFor();
    const facts = (await page.locator(".facts").textContent())!;
    expect(facts).toContain(exact(big.amountWei, ETH18));
    expect(facts).toContain(`(${big.amountWei} base units, 18 decimals)`);

    await page.goto(`${base}/agents/two-token-agent`);
    await page.locator('[data-figure="total-payments"]').waitFor();
    for (const r of agent.recentEvents.items as { id: string; amountWei: string; tokenAddress: string }[]) {
      expect(await page.locator(`[data-event-id="${r.id}"] .c-amt`).textContent()).toBe(exact(r.amountWei, r.tokenAddress));
    }
    // the all-time volume: one exact line per token (the API's per-token split), not a sum
    expect(await page.locator('[data-figure="total-volume"]').textContent()).toBe("2 tokens");
    const lines = await page.locator(".figure-tokens [data-token]").evaluateAll((lis) => lis.map((li) => ({ token: (li as HTMLElement).dataset.token, text: li.textContent })));
    expect(lines).toEqual(agent.totals.byToken.map((t: { tokenAddress: string; amountSumWei: string }) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })));
    expect(lines).toHaveLength(2);
    // the last 24 hours and 7 days: the volume per token (byToken24h, byToken7d)
    for (const [name, split] of [["payments-24h", agent.byToken24h], ["payments-7d", agent.byToken7d]] as const) {
      const shown = await page.locator(`.figure:has([data-figure="${name}"]) .figure-volume [data-token]`).evaluateAll((xs) => xs.map((x) => ({ token: (x as HTMLElement).dataset.token, text: x.textContent })));
      expect(shown).toEqual((split as { tokenAddress: string; amountSumWei: string }[]).map((t) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })));
      expect(shown).toHaveLength(2);
    }
    // the 30-day volume chart: one series per token (the trend's byToken), not replaced by a sentence
    const agentChart = page.locator("figure.chart", { has: page.locator(".chart-title", { hasText: /^Volume/ }) });
    expect(await agentChart.getAttribute("data-series")).toBe("2");
    expect(await agentChart.locator(".chart-token").evaluateAll((xs) => xs.map((x) => x.textContent))).toEqual(
      [USD6, ETH18].map((token) => exact(agent.totals.byToken.find((t: { tokenAddress: string }) => t.tokenAddress === token).amountSumWei, token)),
    );
    // the agents list: 24 h and 7 d volumes per token
    await page.goto(`${base}/agents`);
    const cell = page.locator('tr[data-id="two-token-agent"] td:nth-child(3) [data-token]');
    await cell.first().waitFor();
    expect(await cell.evaluateAll((xs) => xs.map((x) => x.textContent))).toEqual((agent.byToken24h as { tokenAddress: string; amountSumWei: string }[]).map((t) => exact(t.amountSumWei, t.tokenAddress)));
    expect(pageErrors).toEqual([]);
  });
});
