import { formatTokenUnits } from "@agent-ledger/core";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import type { Browser, Page } from "playwright-core";
import { pino } from "pino";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../packages/api/src/buildApp.ts";
import { axe, launchChromium, shots } from "./support/browser.ts";
import { gql } from "../packages/api/test/support/http.ts";
import { seedV03Ledger, V03, type V03Ledger } from "../packages/api/test/support/seedV03Ledger.ts";

// The explorer's event page on a methodology v0.3 ledger (support/seedV03Ledger.ts: the real matcher's rows of two MPP
// charges and of one session channel's whole life, written by the indexer's write path): for each row it shows, as the
// public GraphQL API answers them, which rule named the service (in words), the service, the paying client's fingerprint
// with its registry label, the channel, each amount exact in its token's decimals with the token's symbol, and for a
// session row the channel's life (deposit, settled, refunded, and each escrow event). A v0.3 row without these fields
// (a deposit: funding, no attribution) shows none of them but its channel; a v0.2 row shows none (e2e/explorer.tokens).
// Real PostgreSQL, the real API, Debian Chromium; axe clean; screenshots at 1280 and 390 px.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ledger: V03Ledger;
let pool: pg.Pool;
let sql: pg.Client;
let app: App;
let base: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const SYMBOL: Record<string, string> = { [V03.PATH_USD]: "pathUSD", [V03.USDC_E]: "USDC.e" };
/** An amount as the explorer must write it: exact, the token's 6 decimals, grouped, then the token's symbol. */
const exact = (units: string | bigint, token: string) => `${formatTokenUnits(units, { decimals: 6, group: true })} ${SYMBOL[token]}`;
const WORDS: Record<string, string> = {
  server_id_host: "Named by the service host's fingerprint",
  server_id_realm: "Named by the service directory realm's fingerprint",
  session_escrow: "Named by the session escrow's channel events",
  recipient_wallet: "Named by the recipient's registered wallet",
};

const STEP = "txHash logIndex ts";
const EVENT = `query($id: ID!) { event(id: $id) { id kind amountWei tokenAddress agentLabel routedToLabel routedToAddress routedFingerprint
  attribution clientFingerprint clientLabel channelId
  session { channelId escrowAddress escrowLabel payer payee tokenAddress depositWei settledWei refundedWei
    opened { ${STEP} depositWei } topUps { ${STEP} additionalDepositWei } settlements { ${STEP} deltaPaidWei } closed { ${STEP} refundedToPayerWei } } } }`;

interface Ev {
  id: string;
  kind: string;
  amountWei: string;
  tokenAddress: string;
  agentLabel: string;
  routedToLabel: string;
  routedToAddress: string;
  routedFingerprint: string | null;
  attribution: string | null;
  clientFingerprint: string | null;
  clientLabel: string | null;
  channelId: string | null;
  session: null | {
    channelId: string;
    escrowAddress: string;
    escrowLabel: string;
    payer: string;
    payee: string;
    tokenAddress: string;
    depositWei: string;
    settledWei: string;
    refundedWei: string | null;
    opened: { txHash: string; depositWei: string } | null;
    topUps: { txHash: string; additionalDepositWei: string }[];
    settlements: { txHash: string; deltaPaidWei: string }[];
    closed: { txHash: string; refundedToPayerWei: string } | null;
  };
}

async function apiEvent(id: number): Promise<Ev> {
  const res = await gql(base, EVENT, { id: String(id) });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.event;
}

async function rowId(agentId: string, txHash: string, logIndex = 0): Promise<number> {
  const { rows } = await sql.query("SELECT id::int FROM agent_events WHERE agent_id = $1 AND tx_hash = $2 AND log_index = $3", [agentId, txHash, logIndex]);
  return rows[0].id;
}

const fact = (name: string) => page.locator(`[data-page="event"] [data-fact="${name}"]`);

async function open(id: number) {
  await page.goto(`${base}/events/${id}`);
  await page.locator('[data-page="event"] .facts').first().waitFor();
}

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = await seedV03Ledger(db.url);
  pool = createPgPool(db.url, { max: 4, applicationName: "e2e-explorer-v03" });
  app = buildApp({ pool, log: pino({ level: "silent" }), methodologyVersion: "v0.3", dashboardCacheTtlMs: 0, feed: { enabled: false } });
  base = await app.start(0);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (e) => pageErrors.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sql?.end();
  await app?.stop();
  await pool?.end();
  await db?.drop();
});

describe("explorer event page, methodology v0.3", () => {
  it("a charge: the rule in words, the service, the client with its label, the amount in its token's symbol; no channel or session", async () => {
    const falTx = ledger.logs[0]!.txHash;
    const e = await apiEvent(await rowId("v3-agent", falTx));
    expect(e).toMatchObject({
      attribution: "server_id_host",
      routedToLabel: "fal.ai",
      clientFingerprint: V03.CLIENT,
      clientLabel: V03.CLIENT_LABEL,
      channelId: null,
      session: null,
    });
    await open(Number(e.id));
    expect(await fact("attribution").textContent()).toBe(WORDS[e.attribution!]);
    const service = (await fact("routed").textContent())!;
    expect(service).toContain(e.routedToLabel);
    expect(service).toContain(e.routedFingerprint!);
    expect(await page.locator(".facts dt", { hasText: /^Service$/ }).count()).toBe(1);
    expect(await fact("client").textContent()).toBe(`${e.clientLabel} ${e.clientFingerprint}`);
    expect(await page.locator(".lede strong").textContent()).toBe(exact(e.amountWei, e.tokenAddress));
    expect(await fact("channel").count()).toBe(0);
    expect(await page.locator("[data-session]").count()).toBe(0);
    await axe(page, "v0.3 charge row");
    await shots(page, "v03-event-charge");

    // a charge named by its directory realm, from a client the registry does not label
    const duneTx = ledger.logs.find((l) => l.topics[2]?.endsWith(V03.DUNE.slice(2)))!.txHash;
    const d = await apiEvent(await rowId("dune-mpp", duneTx));
    expect(d).toMatchObject({ attribution: "server_id_realm", clientLabel: null });
    await open(Number(d.id));
    expect(await fact("attribution").textContent()).toBe(WORDS.server_id_realm);
    expect(await fact("client").textContent()).toBe(`unlabelled client ${d.clientFingerprint}`);
    expect(pageErrors).toEqual([]);
  });

  it("a session payout: its channel and the channel's life (deposit, settled, refunded, each escrow event) as the API answers", async () => {
    const e = await apiEvent(await rowId("v3-agent", ledger.sessionTxs[2]!.hash));
    const s = e.session!;
    expect(e).toMatchObject({ attribution: "session_escrow", channelId: V03.CHANNEL, routedToLabel: "OpenRouter", routedToAddress: V03.PAYEE });
    expect(s).toMatchObject({ depositWei: "7000000", settledWei: "6000000", refundedWei: "1000000", tokenAddress: V03.USDC_E });
    await open(Number(e.id));
    expect(await fact("attribution").textContent()).toBe(WORDS.session_escrow);
    expect(await fact("routed").textContent()).toContain("OpenRouter");
    expect(await fact("channel").textContent()).toBe(e.channelId);
    expect(await fact("client").count()).toBe(0); // a session has no MPP memo: no client
    expect(await page.locator(".lede strong").textContent()).toBe(exact(e.amountWei, V03.USDC_E));

    const card = page.locator(`[data-session="${s.channelId}"]`);
    await card.waitFor();
    const cardFacts = (await card.locator(".facts").textContent())!;
    for (const x of [s.channelId, s.escrowLabel, s.escrowAddress, s.payer, s.payee]) expect(cardFacts).toContain(x);
    expect(await card.locator('[data-fact="session-deposit"]').textContent()).toBe(exact(s.depositWei, s.tokenAddress));
    expect(await card.locator('[data-fact="session-settled"]').textContent()).toBe(exact(s.settledWei, s.tokenAddress));
    expect(await card.locator('[data-fact="session-refunded"]').textContent()).toBe(exact(s.refundedWei!, s.tokenAddress));
    // each escrow event, in chain order: what it moved (exact, with the symbol) and its transaction
    const steps = await card.locator("tbody tr").evaluateAll((trs) =>
      trs.map((tr) => ({
        step: (tr as HTMLElement).dataset.step,
        amount: tr.querySelector(".c-amt .num")!.textContent,
        tx: tr.querySelector("a")!.getAttribute("href"),
      })),
    );
    expect(steps).toEqual([
      { step: "opened", amount: exact(s.opened!.depositWei, s.tokenAddress), tx: `/tx/${s.opened!.txHash}` },
      ...s.topUps.map((t) => ({ step: "topped-up", amount: exact(t.additionalDepositWei, s.tokenAddress), tx: `/tx/${t.txHash}` })),
      ...s.settlements.map((t) => ({ step: "settled", amount: exact(t.deltaPaidWei, s.tokenAddress), tx: `/tx/${t.txHash}` })),
      { step: "closed", amount: exact(s.closed!.refundedToPayerWei, s.tokenAddress), tx: `/tx/${s.closed!.txHash}` },
    ]);
    expect(steps.map((x) => x.tx)).toEqual(ledger.sessionTxs.map((t) => `/tx/${t.hash}`));
    await axe(page, "v0.3 session row");
    await shots(page, "v03-event-session");
    expect(pageErrors).toEqual([]);
  });

  it("a deposit (funding, no attribution): its channel and session, no attribution or client", async () => {
    const e = await apiEvent(await rowId("mpp-session-escrow", ledger.sessionTxs[0]!.hash));
    expect(e).toMatchObject({ kind: "funding_received", attribution: null, clientFingerprint: null, channelId: V03.CHANNEL });
    await open(Number(e.id));
    expect(await fact("attribution").count()).toBe(0);
    expect(await fact("client").count()).toBe(0);
    expect(await fact("channel").textContent()).toBe(V03.CHANNEL);
    await page.locator(`[data-session="${V03.CHANNEL}"]`).waitFor();
    expect(await page.locator('[data-fact="session-deposit"]').textContent()).toBe(exact(e.session!.depositWei, V03.USDC_E));
    expect(pageErrors).toEqual([]);
  });
});
