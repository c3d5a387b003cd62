// `npm run bench:web` — the explorer in headless Chromium (Debian's, playwright-core) on loopback, against the API on
// the 1,000,000-row ledger of `bench:api` (same database, seeded or reused by bench/seedBenchLedger.ts).
//
//   first meaningful paint: a fresh browser context per load (cold cache), from navigation start to the moment the
//     dashboard shows its headline figures and has drawn both charts (a MutationObserver in the page notes it); the
//     breakdown's "dashboard query sent" is the boot script's request (docs/web.md, First paint), "script" the app's entry;
//   row to screen: a row committed through the indexer's writeBatch, until it is in the open dashboard's live feed
//     (the page notes the time it appeared; both sides read the same wall clock);
//   window switch: a click on 24h / 7d / 30d / all until the figures of that window and its charts are drawn.
//
// Targets (docs/web.md): paint p95 ≤ 400 ms, row to screen p99 ≤ 1 s, window switch p95 ≤ 150 ms.
// Env: BENCH_WEB_LOADS (30), BENCH_WEB_ROWS (30), BENCH_WEB_SWITCHES (40), BENCH_API_ROWS / BENCH_API_DATABASE_URL as
// bench:api, BENCH_WEB_AS_IS=1 (use the database as it is), CHROMIUM_PATH (/usr/bin/chromium). Run `npm run build` first (npm run bench:web does).
import os from "node:os";
import { matchLogs, FEE_MANAGER_ADDRESS, TRANSFER_TOPIC, type RawLog } from "@agent-ledger/core";
import { createPgPool, loadMatchContext } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import pg from "pg";
import { chromium, type Page } from "playwright-core";
import { pino } from "pino";
import { buildApp } from "../src/buildApp.ts";
import { BENCH_CHAIN_ID, BENCH_METHODOLOGY_VERSION, EXPLORER, TOKEN, buildBenchRegistry, seedBenchLedger } from "./seedBenchLedger.ts";

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const ROWS = num("BENCH_API_ROWS", 1_000_000);
const DATABASE_URL = process.env.BENCH_API_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/agent_ledger_bench_api${ROWS === 1_000_000 ? "" : `_${ROWS}`}`;
const LOADS = num("BENCH_WEB_LOADS", 30);
const LIVE_ROWS = num("BENCH_WEB_ROWS", 30);
const SWITCHES = num("BENCH_WEB_SWITCHES", 40);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const STREAM = "bench-web-live";

const pct = (xs: number[], p: number) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
const fmt = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms, p99 ${pct(xs, 99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (n=${xs.length})`;

/**
 * In the page: resolves with performance.now() when the dashboard of `w` shows its figures and both charts. A string,
 * not a function: tsx would wrap a function's inner names in a helper the page does not have.
 */
const whenDrawn = (page: Page, w: string) =>
  page.evaluate<number>(`new Promise((resolve) => {
    const done = () => document.querySelector('[data-window="${w}"]') && document.querySelectorAll(".chart canvas").length >= 2;
    if (done()) return resolve(performance.now());
    const mo = new MutationObserver(() => { if (done()) { mo.disconnect(); resolve(performance.now()); } });
    mo.observe(document, { childList: true, subtree: true, attributes: true }); // (not the body: with the streamed HTML nothing may be parsed yet)
  })`);

async function main() {
  const log = (s: string) => console.log(s);
  // BENCH_WEB_AS_IS=1: use the database as it is (no seed check, no migrations), e.g. right after bench:api.
  if (process.env.BENCH_WEB_AS_IS !== "1") await seedBenchLedger({ databaseUrl: DATABASE_URL, rows: ROWS, days: 90, agents: 200, reseed: false, log });
  const counter = new pg.Client({ connectionString: DATABASE_URL });
  await counter.connect();
  const {
    rows: [size],
  } = await counter.query("SELECT count(*)::int AS n FROM agent_events");
  await counter.end();
  log(`ledger: ${size.n.toLocaleString("en-US")} rows; ${os.cpus().length} CPUs, ${os.cpus()[0]?.model}`);
  const pool = createPgPool(DATABASE_URL, { max: 10, applicationName: "bench-web" });
  const app = buildApp({ pool, log: pino({ level: "silent" }), methodologyVersion: BENCH_METHODOLOGY_VERSION, feed: { enabled: true } });
  const base = await app.start(0);
  // BENCH_WEB_BASELINE_DIST=<an older build's dist>: first paint alternates A (that build, no inlined first answer) and
  // B (this one), load by load, so both see the same machine load.
  const baselineDist = process.env.BENCH_WEB_BASELINE_DIST;
  const appA = baselineDist
    ? buildApp({
        pool,
        log: pino({ level: "silent" }),
        methodologyVersion: BENCH_METHODOLOGY_VERSION,
        feed: { enabled: true },
        web: { distDir: baselineDist, firstAnswer: false },
      })
    : null;
  const baseA = appA ? await appA.start(0) : null;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    // 1. First meaningful paint, cold cache: a new context (empty HTTP cache) per load. Two unmeasured loads first.
    const runs = (
      baseA
        ? [
            ["A (baseline)", baseA],
            ["B (this build)", base],
          ]
        : [["", base]]
    ).map(([name, url]) => ({
      name: name!,
      url: url!,
      paints: [] as number[],
      parts: { html: [] as number[], script: [] as number[], queryStart: [] as number[], queryEnd: [] as number[] },
    }));
    for (let i = -2 * runs.length; i < LOADS * runs.length; i++) {
      const run = runs[(i + 2 * runs.length) % runs.length]!;
      const { paints, parts } = run;
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${run.url}/`, { waitUntil: "commit" });
      const t = await whenDrawn(page, "24h");
      // Where the time went (Resource Timing, ms from navigation start).
      const r = await page.evaluate<{ html: number; script: number; qs: number; qe: number }>(`(() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const res = performance.getEntriesByType("resource");
        const js = res.find((e) => e.name.includes("/assets/explorer-") && !e.name.includes("/assets/explorer-boot-") && e.name.endsWith(".js"));
        const q = res.find((e) => e.name.endsWith("/graphql"));
        return { html: nav ? nav.responseEnd : NaN, script: js ? js.responseEnd : NaN, qs: q ? q.startTime : NaN, qe: q ? q.responseEnd : NaN };
      })()`);
      if (i >= 0) {
        paints.push(t);
        parts.html.push(r.html);
        parts.script.push(r.script);
        if (!Number.isNaN(r.qs)) {
          // only the loads whose first answer was not inlined (late: docs/web.md, First paint)
          parts.queryStart.push(r.qs);
          parts.queryEnd.push(r.qe);
        }
      }
      await context.close();
    }
    for (const { name, paints, parts } of runs) {
      log(`first meaningful paint${name ? ` ${name}` : ""} (cold cache, figures + both charts): ${fmt(paints)}; load ${os.loadavg()[0]!.toFixed(2)}`);
      // (no dashboard query: the HTML carried its answer)
      log(
        `  medians: HTML received ${pct(parts.html, 50).toFixed(0)} ms, script received ${pct(parts.script, 50).toFixed(0)} ms, ${parts.queryStart.length === 0 ? "no dashboard query (its answer came inlined in the HTML)" : `dashboard query sent ${pct(parts.queryStart, 50).toFixed(0)} ms (${parts.queryStart.length} of ${paints.length} loads), answered ${pct(parts.queryEnd, 50).toFixed(0)} ms`}, drawn ${pct(paints, 50).toFixed(0)} ms`,
      );
    }

    // 2. Window switch: click, until the new window's figures and charts are drawn.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await whenDrawn(page, "24h");
    const switches: number[] = [];
    const order = ["7d", "30d", "all", "24h"];
    for (let i = -4; i < SWITCHES; i++) {
      const w = order[(i + 4) % order.length]!;
      const label = w === "all" ? "All" : w;
      const t = await page.evaluate((l) => {
        const a = [...document.querySelectorAll<HTMLAnchorElement>(".window-switch a")].find((x) => x.textContent === l)!;
        const start = performance.now();
        a.click();
        return start;
      }, label);
      const end = await whenDrawn(page, w);
      if (i >= 0) switches.push(end - t);
    }
    log(`window switch (click → figures + charts of the new window): ${fmt(switches)}`);

    // 3. Row to screen: rows through writeBatch, each until it is in the open dashboard's feed.
    await page.goto(`${base}/`);
    await whenDrawn(page, "24h");
    await page.locator('[data-live-state="live"]').waitFor({ timeout: 30_000 });
    await page.evaluate(() => {
      const w = window as unknown as { __seen: Record<string, number> };
      w.__seen = {};
      new MutationObserver(() => {
        for (const tr of document.querySelectorAll<HTMLElement>(".feed [data-event-id]")) w.__seen[tr.dataset.eventId!] ??= Date.now();
      }).observe(document.body, { childList: true, subtree: true });
    });
    const registry = buildBenchRegistry(200);
    const registryDb = createPgPool(DATABASE_URL, { max: 1 });
    const ctx = await loadMatchContext(registryDb, EXPLORER);
    await registryDb.end();
    const writer = new pg.Client({ connectionString: DATABASE_URL });
    await writer.connect();
    const committed = new Map<string, number>();
    const pad = (a: string) => `0x${a.slice(2).padStart(64, "0")}`;
    const { rows } = await writer.query("SELECT last_block::text FROM indexer_checkpoints WHERE id = $1", [STREAM]);
    let previous = rows[0] ? BigInt(rows[0].last_block) : 200_000_000n;
    const salt = Date.now().toString(36);
    for (let i = -2; i < LIVE_ROWS; i++) {
      const block = previous + 1n;
      const agent = registry.agents[(i + 2) % registry.agents.length]!.wallets[0]!;
      const service = registry.services[1]!.wallets[0]!;
      const base0 = {
        blockNumber: block,
        blockHash: `0x${block.toString(16).padStart(64, "e")}`,
        blockTimestamp: Math.floor(Date.now() / 1000),
        txHash: `0x${Buffer.from(`${salt}:${i}`).toString("hex").padEnd(64, "0").slice(0, 64)}`,
        txIndex: 0,
      };
      const logs: RawLog[] = [
        {
          ...base0,
          logIndex: 0,
          address: TOKEN,
          topics: [TRANSFER_TOPIC, pad(agent), pad(service)],
          data: `0x${(1_000_000 + i + 2).toString(16).padStart(64, "0")}`,
        },
        {
          ...base0,
          logIndex: 1,
          address: TOKEN,
          topics: [TRANSFER_TOPIC, pad(agent), pad(FEE_MANAGER_ADDRESS)],
          data: `0x${(2_000).toString(16).padStart(64, "0")}`,
        },
      ];
      const result = await writeBatch(writer, {
        streamId: STREAM,
        chainId: BENCH_CHAIN_ID,
        startBlock: 200_000_001n,
        previousBlock: previous,
        toBlock: block,
        toBlockHash: base0.blockHash,
        prepared: prepareBatch(logs, matchLogs(logs, ctx, BENCH_METHODOLOGY_VERSION)),
      });
      const at = Date.now();
      previous = block;
      if (i >= 0 && result.firstEventId != null) for (let id = result.firstEventId; id <= result.lastEventId!; id++) committed.set(String(id), at);
      await new Promise((r) => setTimeout(r, 500));
    }
    await writer.end();
    await page.waitForTimeout(2_000);
    const seen = await page.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
    const delays: number[] = [];
    let missing = 0;
    for (const [id, at] of committed) {
      if (seen[id] === undefined) missing++;
      else delays.push(Math.max(0, seen[id]! - at));
    }
    log(`row to screen (commit → row in the dashboard's feed): ${fmt(delays)}${missing ? `, ${missing} rows never shown` : ""}`);
    await context.close();
  } finally {
    await browser.close();
    await app.stop();
    await appA?.stop();
    await pool.end();
  }
}

await main();
