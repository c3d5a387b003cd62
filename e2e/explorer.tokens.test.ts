import { formatTokenUnits, matchLogsV02, parseRegistry, SETTLEMENT_TOPIC, TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC, type RawLog } from "@agent-ledger/core";
import { createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import type { Browser, Locator, Page } from "playwright-core";
import { pino } from "pino";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";
import { axe, launchChromium, shots } from "./support/browser.ts";
import { gql } from "../packages/api/test/support/http.ts";

// The explorer on a methodology v0.2 ledger whose registry allows two tokens of different decimals (6 and 18): every
// amount is written in its own token's decimals with its symbol, exactly as the public GraphQL API answers, and raw
// units of the two tokens are never added up (no total, no summed volume column; the volume chart has one series per token). The footer names each
// token's decimals. Real PostgreSQL, the indexer's own write path (matchLogsV02 → prepareBatch → writeBatch), the
// real API, Debian Chromium.
// The same ledger has payments routed through the MPP gateway to one provider in both tokens (methodology v0.2 rules
// 3 and 6: the agent pays the gateway with a gateway memo whose fingerprint the registry links to the provider, then
// the watched gateway sends the provider `amountOut` in the transaction where the trusted escrow logs its Settlement):
// the provider's page, opened by its address and by its linked fingerprint, writes what reached it per token, and the
// dashboard's "Top providers" card lists it with one line per token. Each chart's bars of both tokens are drawn (pixels
// of each legend swatch's colour in the plot), and at 390 px each amount of a per-token figure keeps its digits on one line.

const USD6 = "0x20c0000000000000000000000000000000000000";
const ETH18 = "0x20c00000000000000000000000000000000000e1";
const AGENT = "0x00000000000000000000000000000000000a6e01";
const SHOP = "0x00000000000000000000000000000000000005b0";
const GATEWAY = "0x00000000000000000000000000000000000006a7";
const ESCROW = "0x00000000000000000000000000000000000e5c40";
const PROVIDER = "0x0000000000000000000000000000000000000d01";
const FP = "0x0102030405060708090a"; // the provider's gateway fingerprint, linked to PROVIDER by the registry
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
    { id: "tempo-gateway-mpp", label: "MPP gateway", category: "gateway", wallets: [GATEWAY] },
  ],
  address_labels: [{ address: PROVIDER, label: "Image provider", category: "provider" }],
  fingerprint_labels: [{ fingerprint: FP, label: "Image (via gateway)", category: "provider", provider_address: PROVIDER }],
  settlement_contracts: [{ address: ESCROW, label: "Gateway escrow" }], // no event: the devnet escrow's Settlement, provider topic 2
};
// amounts chosen so that a float or a 6-decimal formatting of the 18-decimal token would show different digits
const PAYMENTS: [token: string, amount: bigint][] = [
  [USD6, 1_250_000n], // 1.25 pathUSD
  [USD6, 123_456_789_012n], // 123,456.789012 pathUSD
  [ETH18, 1_000_000_000_000_000_001n], // 1.000000000000000001 WETHt
  [ETH18, 2_500_000_000_000_000_000n], // 2.5 WETHt
];
// MPP calls routed to PROVIDER: the agent pays the gateway `amountIn` (memo payment), the gateway settles `amountOut`
// to the provider (its own transaction, as the gateway settles later). What reached the provider is the sum of amountOut.
const ROUTES: [token: string, amountIn: bigint, amountOut: bigint][] = [
  [USD6, 2_000_000n, 1_900_001n], // 1.900001 pathUSD reached the provider
  [USD6, 98_765_432_100n, 93_827_160_495n], // 93,827.160495 pathUSD
  [ETH18, 3_000_000_000_000_000_007n, 2_850_000_000_000_000_003n], // 2.850000000000000003 WETHt
];
const routedTo = (token: string) => ROUTES.filter(([t]) => t === token).reduce((a, [, , out]) => a + out, 0n);

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
/** Per legend swatch of a chart split by token: whether the plot area (.u-over) of its canvas has a pixel of that colour. */
const drawnPerSeries = (chart: Locator) =>
  chart.evaluate((fig) => {
    const canvas = fig.querySelector("canvas")!;
    const c = canvas.getBoundingClientRect();
    const over = fig.querySelector(".u-over")!.getBoundingClientRect();
    const r = canvas.width / c.width;
    const img = canvas
      .getContext("2d")!
      .getImageData(Math.round((over.left - c.left) * r), Math.round((over.top - c.top) * r), Math.round(over.width * r), Math.round(over.height * r)).data;
    return [...fig.querySelectorAll(".chart-swatch")].map((sw) => {
      const [red, green, blue] = getComputedStyle(sw).backgroundColor.match(/\d+/g)!.map(Number);
      for (let i = 0; i < img.length; i += 4) if (img[i] === red && img[i + 1] === green && img[i + 2] === blue && img[i + 3] === 255) return true;
      return false;
    });
  });
const exact = (units: string, token: string) => `${formatTokenUnits(units, { decimals: decimalsOf(token), group: true })} ${symbolOf(token)}`;

beforeAll(async () => {
  db = await createTestDatabase();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(registry), "registry:two-tokens.json");
  const ctx = await loadMatchContext(registryDb, "https://explore.test");
  await registryDb.end();
  const now = Math.floor(Date.now() / 1000);
  const pad = (a: string) => `0x${a.slice(2).padStart(64, "0")}`;
  const word = (n: bigint) => n.toString(16).padStart(64, "0");
  const logs: RawLog[] = [];
  let block = 0;
  // one transaction per block; its logs in order
  const tx = (ts: number, body: Pick<RawLog, "address" | "topics" | "data">[]) => {
    block++;
    const at = {
      blockNumber: BigInt(block),
      blockHash: `0x${block.toString(16).padStart(64, "b")}`,
      blockTimestamp: ts,
      txHash: `0x${block.toString(16).padStart(64, "7")}`,
      txIndex: 0,
    };
    body.forEach((l, logIndex) => logs.push({ ...at, logIndex, ...l }));
  };
  const transfer = (token: string, from: string, to: string, amount: bigint) => ({
    address: token,
    topics: [TRANSFER_TOPIC, pad(from), pad(to)],
    data: `0x${word(amount)}`,
  });
  PAYMENTS.forEach(([token, amount], i) => tx(now - 3600 * (i + 1), [transfer(token, AGENT, SHOP, amount)]));
  // the gateway's calls: hours apart from the payments above (the dashboard test hovers one of their hourly buckets)
  ROUTES.forEach(([token, amountIn, amountOut], i) => {
    const at = now - 3600 * (i + 5) - 1800;
    // a TIP-20 logs Transfer then TransferWithMemo; the memo: magic, fingerprint, 8 zero bytes, a 7-byte nonce, 2 zero bytes
    const memo = `0xef1ed71201${FP.slice(2)}${"00".repeat(8)}${(i + 1).toString(16).padStart(14, "0")}0000`;
    tx(at, [
      transfer(token, AGENT, GATEWAY, amountIn),
      { address: token, topics: [TRANSFER_WITH_MEMO_TOPIC, pad(AGENT), pad(GATEWAY), memo], data: `0x${word(amountIn)}` },
    ]);
    // the gateway pays the provider amountOut; the escrow's Settlement(sessionRef, serviceProvider, gateway, amountIn, amountOut)
    tx(at + 60, [
      transfer(token, GATEWAY, PROVIDER, amountOut),
      { address: ESCROW, topics: [SETTLEMENT_TOPIC, `0x${word(BigInt(i + 1))}`, pad(PROVIDER), pad(GATEWAY)], data: `0x${word(amountIn)}${word(amountOut)}` },
    ]);
  });
  const writer = new pg.Client({ connectionString: db.url });
  await writer.connect();
  await writer.query("INSERT INTO rollups_version (id, methodology_version) VALUES (true, 'v0.2') ON CONFLICT (id) DO UPDATE SET methodology_version = 'v0.2'");
  await writeBatch(writer, {
    streamId: "two-tokens",
    chainId: 31337,
    startBlock: 1n,
    previousBlock: 0n,
    toBlock: BigInt(block),
    toBlockHash: logs.at(-1)!.blockHash,
    prepared: prepareBatch(logs, matchLogsV02(logs, ctx)),
  });
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
    const { tokens, dashboard } = await data(
      `{ tokens { address symbol decimals } dashboard(window: "24h") { txCount byToken { tokenAddress amountSumWei } } }`,
    );
    expect(tokens).toEqual([
      { address: USD6, symbol: "pathUSD", decimals: 6 },
      { address: ETH18, symbol: "WETHt", decimals: 18 },
    ]);
    expect(dashboard.txCount).toBe(PAYMENTS.length + ROUTES.length); // agent → shop and agent → gateway; a settlement leg is no payment
    expect(dashboard.byToken.map((t: { tokenAddress: string }) => t.tokenAddress).sort()).toEqual([USD6, ETH18]);
  });

  it("dashboard: one exact line per token, no cross-token total, rows in their own decimals, footer per token", async () => {
    const { dashboard: d } =
      await data(`{ dashboard(window: "24h") { byToken { tokenAddress symbol decimals amountSumWei } recentEvents { id amountWei tokenAddress }
      topServices { byToken { tokenAddress amountSumWei } } topAgents { byToken { tokenAddress amountSumWei } } topProviders { key byToken { tokenAddress amountSumWei } } } }`);
    await page.goto(`${base}/`);
    await page.locator('[data-window="24h"]').waitFor();
    const lines = await page
      .locator(".figure-tokens [data-token]")
      .evaluateAll((lis) => lis.map((li) => ({ token: (li as HTMLElement).dataset.token, text: li.textContent })));
    expect(lines).toEqual(
      d.byToken.map((t: { tokenAddress: string; amountSumWei: string }) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })),
    );
    expect(await page.locator('[data-figure="volume"]').textContent()).toBe("2 tokens"); // not a sum of raw units
    // feed rows: each amount in its token's decimals with its symbol
    expect(d.recentEvents.length).toBeGreaterThan(0);
    for (const r of d.recentEvents as { id: string; amountWei: string; tokenAddress: string }[]) {
      expect(await page.locator(`.feed [data-event-id="${r.id}"] .c-amt`).textContent()).toBe(exact(r.amountWei, r.tokenAddress));
    }
    // rankings: each row's volume is one exact line per token (the API's TopEntity.byToken), never a sum across tokens
    // (the gateway's provider too: what reached it, per token)
    expect(d.topProviders.map((p: { key: string }) => p.key)).toEqual([PROVIDER]);
    for (const [title, rows] of [
      ["Top services", d.topServices],
      ["Top agents", d.topAgents],
      ["Top providers (via the MPP gateway)", d.topProviders],
    ] as const) {
      const cells = page.locator(".top-table", { has: page.getByRole("heading", { name: title, exact: true }) }).locator("tbody td:nth-child(3)");
      await cells.first().waitFor();
      const shown = await cells.evaluateAll((tds) =>
        tds.map((td) => [...td.querySelectorAll<HTMLElement>("[data-token]")].map((x) => ({ token: x.dataset.token, text: x.textContent }))),
      );
      const expected = (rows as { byToken: { tokenAddress: string; amountSumWei: string }[] }[]).map((r) =>
        r.byToken.map((t) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.map((r) => r.length)).toEqual(expected.map(() => 2)); // every ranked row was paid in both tokens
      expect(shown).toEqual(expected);
      // and each amount's digits stay on one line (an 18-decimal amount once broke digit by digit in these cards)
      const digitLines = await cells.evaluateAll((tds) =>
        tds.flatMap((td) =>
          [...td.querySelectorAll<HTMLElement>("[data-token]")].map((x) => {
            const range = document.createRange();
            range.selectNodeContents(x.firstChild!);
            return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
          }),
        ),
      );
      expect(digitLines).toEqual(expected.flat().map(() => 1));
    }
    // the volume chart: one series per token (no sum of raw units), its legend exact in each token's units
    const { activitySeries: series } = await data(`{ activitySeries(window: "24h") { bucket points { t byToken { tokenAddress amountSumWei } } } }`);
    const chart = page.locator("figure.chart", { has: page.locator(".chart-title", { hasText: /^Volume/ }) });
    expect(await page.locator(".chart-note").count()).toBe(0);
    expect(await chart.getAttribute("data-series")).toBe("2");
    expect(await chart.locator(".u-over").count()).toBe(1); // drawn
    const legend = () => chart.locator(".chart-token").evaluateAll((xs) => xs.map((x) => ({ token: (x as HTMLElement).dataset.token, text: x.textContent })));
    expect(await legend()).toEqual(
      d.byToken
        .map((t: { tokenAddress: string }) => t.tokenAddress)
        .sort((a: string, b: string) => (a === USD6 ? -1 : b === USD6 ? 1 : 0))
        .map((token: string) => ({
          token,
          text: exact(d.byToken.find((t: { tokenAddress: string }) => t.tokenAddress === token).amountSumWei, token),
        })),
    );
    // hover the bucket of the largest pathUSD payment: the legend equals that bucket of the GraphQL series, per token
    type Point = { t: string; byToken: { tokenAddress: string; amountSumWei: string }[] };
    const target = (series.points as Point[]).find((p) => p.byToken.some((t) => t.tokenAddress === USD6 && t.amountSumWei === "123456789012"))!;
    expect(target).toBeDefined();
    const over = (await chart.locator(".u-over").boundingBox())!;
    let hovered: string | null = null;
    for (let x = over.x + 1; x < over.x + over.width && hovered !== target.t; x += 3) {
      await page.mouse.move(x, over.y + over.height / 2);
      hovered = await chart
        .locator(".chart-legend time")
        .getAttribute("datetime", { timeout: 1000 })
        .catch(() => null);
    }
    expect(hovered).toBe(target.t);
    expect(await legend()).toEqual(
      [USD6, ETH18].map((token) => ({ token, text: exact(target.byToken.find((t) => t.tokenAddress === token)?.amountSumWei ?? "0", token) })),
    );
    await page.mouse.move(0, 0);
    expect(await drawnPerSeries(chart)).toEqual([true, true]); // each token's bars are drawn
    await axe(page, "dashboard with two tokens");
    await shots(page, "tokens-dashboard");
    expect(await page.locator(".foot [data-units]").textContent()).toBe(
      "Amounts are shown exactly, each in its own token's units (pathUSD 6 decimals, WETHt 18 decimals)",
    );
  });

  it("event and agent pages write each amount in its token's decimals; the agent's total is one line per token", async () => {
    const { agent } =
      await data(`{ agent(id: "two-token-agent") { totals { txCount byToken { tokenAddress amountSumWei } } recentEvents(first: 50) { items { id amountWei tokenAddress } }
      byToken24h { tokenAddress amountSumWei } byToken7d { tokenAddress amountSumWei } } }`);
    const big = (agent.recentEvents.items as { id: string; amountWei: string; tokenAddress: string }[]).find((r) => r.tokenAddress === ETH18)!;
    await page.goto(`${base}/events/${big.id}`);
    await page.locator('[data-page="event"] .facts').waitFor();
    const facts = (await page.locator(".facts").textContent())!;
    expect(facts).toContain(exact(big.amountWei, ETH18));
    expect(facts).toContain(`(${big.amountWei} base units, 18 decimals)`);
    // a v0.2 row: none of methodology v0.3's facts (attribution, client, channel) and no session card
    expect(
      await page
        .locator(
          '[data-page="event"] [data-fact="attribution"], [data-page="event"] [data-fact="client"], [data-page="event"] [data-fact="channel"], [data-page="event"] [data-session]',
        )
        .count(),
    ).toBe(0);

    await page.goto(`${base}/agents/two-token-agent`);
    await page.locator('[data-figure="total-payments"]').waitFor();
    for (const r of agent.recentEvents.items as { id: string; amountWei: string; tokenAddress: string }[]) {
      expect(await page.locator(`[data-event-id="${r.id}"] .c-amt`).textContent()).toBe(exact(r.amountWei, r.tokenAddress));
    }
    // the all-time volume: one exact line per token (the API's per-token split), not a sum
    expect(await page.locator('[data-figure="total-volume"]').textContent()).toBe("2 tokens");
    const lines = await page
      .locator(".figure-tokens [data-token]")
      .evaluateAll((lis) => lis.map((li) => ({ token: (li as HTMLElement).dataset.token, text: li.textContent })));
    expect(lines).toEqual(
      agent.totals.byToken.map((t: { tokenAddress: string; amountSumWei: string }) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })),
    );
    expect(lines).toHaveLength(2);
    // the last 24 hours and 7 days: the volume per token (byToken24h, byToken7d)
    for (const [name, split] of [
      ["payments-24h", agent.byToken24h],
      ["payments-7d", agent.byToken7d],
    ] as const) {
      const shown = await page
        .locator(`.figure:has([data-figure="${name}"]) .figure-volume [data-token]`)
        .evaluateAll((xs) => xs.map((x) => ({ token: (x as HTMLElement).dataset.token, text: x.textContent })));
      expect(shown).toEqual(
        (split as { tokenAddress: string; amountSumWei: string }[]).map((t) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })),
      );
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
    expect(await cell.evaluateAll((xs) => xs.map((x) => x.textContent))).toEqual(
      (agent.byToken24h as { tokenAddress: string; amountSumWei: string }[]).map((t) => exact(t.amountSumWei, t.tokenAddress)),
    );
    expect(pageErrors).toEqual([]);
  });

  it("provider page: what the gateway routed to the provider, each token in its own decimals, one chart series per token; found by its linked fingerprint too", async () => {
    const q = `query($k: String!) { provider(key: $k) { key pattern address fingerprint label txCount amountSumWei byToken { tokenAddress symbol decimals amountSumWei } }
      activitySeries(window: "30d", providerKey: $k) { points { t byToken { tokenAddress amountSumWei } } } }`;
    const { provider: p, activitySeries } = await data(q, { k: PROVIDER });
    // the API: what reached the provider is the settlement legs (amountOut), per token, not the agent's payments
    expect(p).toMatchObject({ key: PROVIDER, pattern: "address", address: PROVIDER, label: "Image provider", txCount: ROUTES.length });
    expect(
      [...p.byToken].sort((a: { tokenAddress: string }, b: { tokenAddress: string }) => (a.tokenAddress === USD6 ? -1 : b.tokenAddress === USD6 ? 1 : 0)),
    ).toEqual(
      [USD6, ETH18].map((token) => ({ tokenAddress: token, symbol: symbolOf(token), decimals: decimalsOf(token), amountSumWei: routedTo(token).toString() })),
    );
    // the key its gateway memos carry names the same provider (rule 3: one provider, two keys)
    expect((await data(q, { k: FP })).provider).toEqual(p);

    type Point = { t: string; byToken: { tokenAddress: string; amountSumWei: string }[] };
    const seriesSum = (token: string) =>
      (activitySeries.points as Point[]).reduce((a, x) => a + BigInt(x.byToken.find((t) => t.tokenAddress === token)?.amountSumWei ?? "0"), 0n);
    expect([USD6, ETH18].map(seriesSum)).toEqual([USD6, ETH18].map(routedTo));
    // the agent's payment to the gateway carries both keys; its event page links each to the provider page
    const { agent } = await data(`{ agent(id: "two-token-agent") { recentEvents(first: 50) { items { id routedToAddress routedFingerprint } } } }`);
    const routed = (agent.recentEvents.items as { id: string; routedToAddress: string; routedFingerprint: string | null }[]).find(
      (r) => r.routedFingerprint === FP,
    )!;
    expect(routed).toMatchObject({ routedToAddress: PROVIDER });
    for (const key of [PROVIDER, FP]) {
      await page.goto(`${base}/events/${routed.id}`);
      await page.locator(`[data-page="event"] .facts a[href="/providers/${key}"]`).click();
      await page.locator('[data-page="provider"] [data-figure="provider-volume"]').waitFor();
      expect(await page.locator("h1").textContent()).toBe("Image provider");
      expect(await page.locator('[data-figure="provider-payments"]').textContent()).toBe(p.txCount.toLocaleString("en-US"));
      // the volume: one exact line per token, never a sum of raw units of different decimals
      expect(await page.locator('[data-figure="provider-volume"]').textContent()).toBe("2 tokens");
      const lines = await page
        .locator('.figure:has([data-figure="provider-volume"]) .figure-tokens [data-token]')
        .evaluateAll((xs) => xs.map((x) => ({ token: (x as HTMLElement).dataset.token, text: x.textContent })));
      expect(lines).toEqual(
        p.byToken.map((t: { tokenAddress: string; amountSumWei: string }) => ({ token: t.tokenAddress, text: exact(t.amountSumWei, t.tokenAddress) })),
      );
      expect(await page.locator("dl.facts").textContent()).toContain(PROVIDER);
      // the 30-day chart: one series per token; its legend (no hover: the whole window) exact per token
      const chart = page.locator("figure.chart", { has: page.locator(".chart-title", { hasText: /^Volume/ }) });
      await expect.poll(() => chart.getAttribute("data-series")).toBe("2");
      expect(await chart.locator(".u-over").count()).toBe(1); // drawn
      expect(
        await chart.locator(".chart-token").evaluateAll((xs) => xs.map((x) => ({ token: (x as HTMLElement).dataset.token, text: x.textContent }))),
      ).toEqual([USD6, ETH18].map((token) => ({ token, text: exact(routedTo(token).toString(), token) })));
      // and each token's bar is drawn: pixels of its swatch's colour in the plot area (all of it is today's bucket,
      // the last one, whose second bar once fell right of the x scale and was not drawn)
      expect(await drawnPerSeries(chart)).toEqual([USD6, ETH18].map(() => true));
    }
    // at 390 px each amount of the volume figure keeps its digits on one line (2.850000000000000003 once broke in a half-width card)
    await page.setViewportSize({ width: 390, height: 844 });
    expect(
      await page.locator('.figure:has([data-figure="provider-volume"]) .tok-amount').evaluateAll((xs) =>
        xs.map((x) => {
          const range = document.createRange();
          range.selectNodeContents(x.firstChild!);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }),
      ),
    ).toEqual([1, 1]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page, "provider with two tokens");
    await shots(page, "tokens-provider");
    expect(pageErrors).toEqual([]);
  });
});
