import { createTestDatabase } from "@agent-ledger/db/testing";
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { createDevnetClient, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import type { Browser, Page } from "playwright-core";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axe, keyboardReachesEverything, launchChromium, shots as screenshots } from "./support/browser.ts";
import { ownerPage, signIn, type OwnerPage } from "./support/ownerConsole.ts";
import { SoftAuthenticator } from "../packages/api/test/support/softAuthenticator.ts";
import { call, registerUser, startWalletApp, type WalletTestApp } from "../packages/api/test/support/walletApp.ts";
import { DEFAULT_GRANT, fund, pairAgent, startPairing } from "../packages/api/test/support/walletFlow.ts";

// The owner console's states beyond the happy path (e2e/console.test.ts has that), in real Chromium with the owner's
// passkey in a CDP virtual authenticator, against the real API, PostgreSQL and a devnet: a session's payments over
// two pages ("Load older payments", newest first, equal to the API's order, no duplicate); the Expired and Pending
// on chain statuses; an on-chain revoke whose passkey prompt genuinely fails (the credential is taken out of the
// authenticator), shown as step 1 done / step 2 failed, offered again in the sessions table after a reload, and
// retried from the page once the passkey is back (keychain reads revoked); "Revoke all" with several active sessions
// (both steps done, every session revoked in the API and every key revoked on chain), and one whose on-chain step
// fails, retried with "Retry all on chain" once nothing is active; a last payment the chain refused is marked failed;
// a "Load older payments" that fails (the sign-in ended) is said; the Revoke / Retry buttons stay in view at 1280 px.
// axe and screenshots (1280 / 390 px, no horizontal overflow) for each state. Set-up data written straight to the
// database: one session's created_at / expires_at moved into the past (the Expired row).

let anvil: AnvilInstance;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: WalletTestApp;
let browser: Browser;
const pageLog: string[] = [];

const reader = () => createDevnetClient({ url: anvil.url });
const shots = (page: Page, name: string) => screenshots(page, `console-${name}`);
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Hex;
/** At 1280 px every action button of the sessions table is in view, inside the table's visible box (not behind its sideways scroll). */
const actionsInView = (page: Page) =>
  page.$$eval("[data-console=sessions] td[data-label=Actions] button", (buttons) =>
    buttons.map((b) => {
      const box = b.closest(".table-wrap")!.getBoundingClientRect();
      const r = b.getBoundingClientRect();
      return r.left >= box.left && r.right <= box.right
        ? "in view"
        : `${b.textContent} at ${Math.round(r.left)}–${Math.round(r.right)}, outside ${Math.round(box.left)}–${Math.round(box.right)}`;
    }),
  );

beforeAll(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  t = await startWalletApp(db.url, anvil.url, { rpId: "localhost", pollIntervalSeconds: 1, receiptTimeoutMs: 15_000 });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  await t?.close().catch(() => {});
  await anvil?.stop();
  await db?.drop();
  if (process.env.E2E_PAGE_LOG) console.log(pageLog.join("\n"));
}, 60_000);

describe("owner console: paging, statuses, a failed on-chain revoke and its retry, revoke all (Chromium)", () => {
  const owner = new SoftAuthenticator();
  let jar: Record<string, string>;
  let managed: Hex;
  let o: OwnerPage;
  let page: Page;
  let paging: { session_id: string; agent_key_address: Hex };
  let expired: string;
  let pending: string;

  const session = async (id: string) => (await call(t.url, "GET", `/api/wallet/sessions/${id}`, { jar })).body;
  const row = (id: string) => page.locator(`tr[data-session="${id}"]`);
  const keyRevoked = async (key: string) => (await reader().accessKey.getMetadata({ account: managed, accessKey: key as Hex })).isRevoked;

  it("a session's payments over two pages: the 20 newest first, then 'Load older payments' adds the rest: the API's order and amounts exactly, no duplicate", async () => {
    ({
      jar,
      user: { managed_address: managed },
    } = await registerUser(t.url, owner, "console owner"));
    const p = await pairAgent(t.url, anvil.url, {
      authn: owner,
      jar,
      label: "paging agent",
      grant: { spend_cap_wei: "50000000", per_call_cap_wei: "2000000" },
    });
    paging = p.token;
    await fund(anvil.url, managed, 60_000_000n);
    // 23 payments of distinct amounts (concurrently: their order is the API's, read below)
    const paid = await Promise.all(
      Array.from({ length: 23 }, (_, i) =>
        call(t.url, "POST", "/api/wallet/pay", {
          bearer: p.token.access_token,
          body: { to: randomAddress(), amount_wei: String(1_000_001 + i * 10_101), memo: `p${i}` },
        }),
      ),
    );
    expect(paid.map((r) => r.status)).toEqual(Array(23).fill(200));
    const api = await call(t.url, "GET", `/api/wallet/sessions/${paging.session_id}/payments?limit=100`, { jar });
    expect(api.body.items).toHaveLength(23);
    expect(api.body.next_cursor).toBeNull();
    const expected = api.body.items.map((x: { id: string; amount_wei: string; memo: string }) => ({
      id: x.id,
      amount: formatTokenUnits(x.amount_wei, { group: true }),
      memo: x.memo,
    }));

    o = await ownerPage(browser, owner, pageLog);
    page = o.page;
    await signIn(page, t.url, managed);
    await row(paging.session_id).getByRole("link", { name: "paging agent" }).click();
    const rows = page.locator("[data-console=payments] tbody tr");
    await expect.poll(() => rows.count()).toBe(20);
    const shown = async () => {
      const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-payment")));
      const amounts = (await page.locator("[data-console=payments] tbody tr td:nth-child(3)").allTextContents()).map((s) => s.split(" ")[0]);
      const memos = await page.locator("[data-console=payments] tbody tr td:nth-child(4)").allTextContents();
      return ids.map((id, i) => ({ id, amount: amounts[i], memo: memos[i] }));
    };
    expect(await shown()).toEqual(expected.slice(0, 20));
    expect(await page.textContent("#payments-title")).toBe("Payments (23)");
    expect(await page.textContent("[data-console=payments-shown]")).toBe("Showing the 20 newest of 23.");
    await shots(page, "wallet-session-first-page");
    await page.getByRole("button", { name: "Load older payments" }).click();
    await expect.poll(() => rows.count()).toBe(23);
    const all = await shown();
    expect(all).toEqual(expected);
    expect(new Set(all.map((r) => r.id)).size).toBe(23);
    expect(await page.getByRole("button", { name: "Load older payments" }).count()).toBe(0);
    expect(await page.locator("[data-console=payments-shown]").count()).toBe(0);
    await axe(page, "wallet session, two pages");
    await shots(page, "wallet-session-paged");
  }, 120_000);

  it("statuses: a session past its expiry shows Expired and no Revoke; one approved but not authorized on chain shows Pending on chain", async () => {
    const e = await pairAgent(t.url, anvil.url, {
      authn: owner,
      jar,
      label: "expired agent",
      grant: { spend_cap_wei: "100000000", per_call_cap_wei: "100000000" },
    });
    expired = e.token.session_id;
    // a payment the chain refuses (more than the account holds): the session's last payment is a failed one
    const refused = await call(t.url, "POST", "/api/wallet/pay", { bearer: e.token.access_token, body: { to: randomAddress(), amount_wei: "90000000" } });
    expect([refused.status, refused.body.error?.code]).toEqual([500, "payment_failed"]);
    // test set-up data: the session's expiry moved into the past
    await t.pool.query("UPDATE wallet_sessions SET expires_at = now() - interval '1 minute', created_at = now() - interval '3 days' WHERE id = $1", [expired]);
    const started = await startPairing(t.url, "pending agent");
    const init = await call(t.url, "POST", "/api/wallet/device/approve-init", { jar, body: { code: started.code, ...DEFAULT_GRANT } });
    expect(init.status).toBe(200);
    pending = init.body.session_id;
    expect((await session(expired)).status).toBe("expired");
    expect((await session(pending)).status).toBe("pending");

    await page.goto(`${t.url}/wallet`);
    await expect.poll(() => row(expired).getAttribute("data-status")).toBe("expired");
    expect(await row(expired).locator("[data-label=Status]").textContent()).toBe("Expired");
    expect(await row(expired).getByRole("button").count()).toBe(0);
    // its last payment failed: said so, not shown as if it was paid
    expect(await row(expired).locator("[data-label='Last payment']").textContent()).toMatch(/^90\.00 pathUSD failed\S/);
    expect(await row(paging.session_id).locator("[data-label='Last payment']").textContent()).not.toMatch(/sent|failed/);
    expect(await row(pending).getAttribute("data-status")).toBe("pending");
    expect(await row(pending).locator("[data-label=Status]").textContent()).toBe("Pending on chain");
    expect(await row(pending).getByRole("button", { name: "Revoke pending agent" }).count()).toBe(1);
    expect(await row(paging.session_id).getByRole("button", { name: "Revoke paging agent" }).count()).toBe(1);
    expect(await actionsInView(page)).toEqual(["in view", "in view"]);
    await axe(page, "wallet statuses");
    await keyboardReachesEverything(page, "wallet statuses");
    await shots(page, "wallet-statuses");
  }, 60_000);

  it("the passkey prompt fails: step 1 done, step 2 failed with a retry; the table offers the retry after a reload; with the passkey back the retry revokes on chain", async () => {
    const id = paging.session_id;
    await o.removePasskey();
    await row(id).getByRole("button", { name: "Revoke paging agent" }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 40_000 }).toMatch(/done|failed/);
    expect(await page.getAttribute("[data-step=chain]", "data-state")).toBe("failed");
    expect(await page.getAttribute("[data-step=db]", "data-state")).toBe("done");
    expect(await page.textContent("[data-step=db]")).toContain("payments are refused from now on (1 session).");
    // the browser's refusal, said plainly (it was "Failed to request credential..": the signer's wrapper, two periods)
    expect(await page.textContent("[data-step=chain]")).toContain(
      "On-chain revoke failed: your passkey did not sign (cancelled, timed out, or no passkey for this account on this device). Payments through Agent Ledger stay stopped; retry",
    );
    expect(await page.getByRole("button", { name: "Retry on-chain revoke" }).count()).toBe(1);
    expect(await page.textContent("#revoke-title")).toBe("Revoking paging agent: not finished");
    const failed = await session(id);
    expect(failed).toMatchObject({ status: "revoked", revoked_by: "owner", chain_revoke: { status: "failed", tx_hash: null } });
    expect(failed.chain_revoke.error).toMatch(/^your passkey did not sign/);
    expect(await keyRevoked(paging.agent_key_address)).toBe(false);
    await axe(page, "revoke failed");
    await shots(page, "revoke-failed");

    // a reload: the panel is gone, the table offers the retry for that session (and says why it failed)
    await page.reload();
    await expect.poll(() => row(id).getAttribute("data-status")).toBe("revoked");
    expect(await row(id).locator("[data-label='On chain']").textContent()).toContain(`Failed${failed.chain_revoke.error}`);
    const retry = row(id).getByRole("button", { name: "Retry the on-chain revoke of paging agent" });
    expect(await retry.textContent()).toBe("Retry on chain");
    expect(await actionsInView(page)).toEqual(["in view", "in view"]);
    await axe(page, "wallet with a failed on-chain revoke");
    await shots(page, "wallet-retry");
    // the session's page: the whole reason, and the same retry
    await row(id).getByRole("link", { name: "paging agent" }).click();
    await expect.poll(() => page.textContent("[data-console=session-facts]")).toContain(`On chainFailed${failed.chain_revoke.error}`);
    expect(await page.locator(".page-head").getByRole("button", { name: "Retry on-chain revoke" }).count()).toBe(1);
    await axe(page, "session with a failed on-chain revoke");
    await shots(page, "wallet-session-failed");
    await page.goBack();
    await expect.poll(() => row(id).getAttribute("data-status")).toBe("revoked");

    // the table's retry while the passkey is still missing fails again (the database step is idempotent)…
    await retry.click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 40_000 }).toBe("failed");
    expect(await page.getAttribute("[data-step=db]", "data-state")).toBe("done");
    expect(await page.textContent("[data-step=db]")).toContain("Already stopped in Agent Ledger: payments stay refused.");
    // …and the panel's retry, with the passkey back, revokes the key on chain
    await o.restorePasskey();
    await page.$eval("[data-console=revoke-progress]", (el) => el.setAttribute("data-kept", "yes"));
    await page.getByRole("button", { name: "Retry on-chain revoke" }).click();
    // keyboard users are not dropped to the top of the page when the button goes away
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-console"))).toBe("revoke-progress");
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 60_000 }).toMatch(/done|failed/);
    if ((await page.getAttribute("[data-step=chain]", "data-state")) !== "done")
      throw new Error(`on-chain retry failed: ${await page.textContent("[data-step=chain]")}\n${pageLog.join("\n")}`);
    expect(await page.getAttribute("[data-step=db]", "data-state")).toBe("done");
    expect(await page.getByRole("button", { name: "Retry on-chain revoke" }).count()).toBe(0);
    // the retry ran in the same panel (its live region announces the steps; it was re-created at each step)
    expect(await page.getAttribute("[data-console=revoke-progress]", "data-kept")).toBe("yes");
    expect(await session(id)).toMatchObject({
      status: "revoked",
      chain_revoke: { status: "confirmed", error: null, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    expect(await keyRevoked(paging.agent_key_address)).toBe(true);
    await expect.poll(() => row(id).locator("[data-label='On chain']").textContent()).toMatch(/^Revoked on chain/);
    expect(await row(id).getByRole("button").count()).toBe(0);
    await axe(page, "retry done");
    await shots(page, "revoke-retry-done");
  }, 90_000);

  it("Revoke all with several active sessions: both steps done; every session revoked in the API and every key revoked on chain", async () => {
    const q = await pairAgent(t.url, anvil.url, { authn: owner, jar, label: "first of all" });
    const r = await pairAgent(t.url, anvil.url, { authn: owner, jar, label: "second of all" });
    await page.reload();
    await expect.poll(() => page.locator("tr[data-status=active]").count()).toBe(2);
    await page.getByRole("button", { name: "Revoke all" }).click();
    // the two authorized sessions and the pending one
    expect(await page.textContent("[data-console=confirm]")).toContain(
      "Revoke all 3 active agent sessions? Payments through Agent Ledger stop at once; then your passkey signs one transaction revoking their agent keys on chain",
    );
    await shots(page, "revoke-all-confirm");
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 60_000 }).toMatch(/done|failed/);
    if ((await page.getAttribute("[data-step=chain]", "data-state")) !== "done")
      throw new Error(`on-chain step failed: ${await page.textContent("[data-step=chain]")}\n${pageLog.join("\n")}`);
    expect(await page.getAttribute("[data-step=db]", "data-state")).toBe("done");
    // step 1 counts the sessions stopped now (the API's answer also lists the one revoked in the previous test)
    expect(await page.textContent("[data-step=db]")).toContain("payments are refused from now on (3 sessions).");
    expect(await page.textContent("[data-step=chain]")).toContain("Revoked on chain: the keychain reports all 2 agent keys revoked.");
    expect(await page.textContent("#revoke-title")).toBe("Revoked every agent");
    for (const s of [q.token, r.token]) {
      expect(await session(s.session_id)).toMatchObject({ status: "revoked", revoked_by: "owner", chain_revoke: { status: "confirmed", error: null } });
      expect(await keyRevoked(s.agent_key_address)).toBe(true);
    }
    // never authorized on chain: revoked in the database, nothing to revoke on chain
    expect(await session(pending)).toMatchObject({ status: "revoked", revoked_by: "owner", chain_revoke: { status: null } });
    // expired before: left as it was
    expect(await session(expired)).toMatchObject({ status: "expired", revoked_at: null });
    await expect.poll(() => page.locator("tr[data-status=revoked]").count()).toBe(4);
    expect(await page.getByRole("button", { name: "Revoke all" }).count()).toBe(0);
    expect(await page.locator("[data-console=sessions] button").count()).toBe(0);
    expect(await page.textContent("[data-console=none-active]")).toContain("None of these agents can spend your money through Agent Ledger now");
    await axe(page, "revoke all done");
    await shots(page, "revoke-all-done");
  }, 90_000);

  it("Revoke all whose on-chain step fails: with nothing active left, the table offers 'Retry all on chain' (one transaction for every open key)", async () => {
    const keys = [
      await pairAgent(t.url, anvil.url, { authn: owner, jar, label: "third of all" }),
      await pairAgent(t.url, anvil.url, { authn: owner, jar, label: "fourth of all" }),
    ].map((p) => p.token);
    await page.reload();
    await expect.poll(() => page.locator("tr[data-status=active]").count()).toBe(2);
    await o.removePasskey();
    await page.getByRole("button", { name: "Revoke all" }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 40_000 }).toBe("failed");
    expect(await page.textContent("[data-step=db]")).toContain("payments are refused from now on (2 sessions).");
    for (const k of keys) expect(await session(k.session_id)).toMatchObject({ status: "revoked", chain_revoke: { status: "failed" } });

    await page.reload();
    await expect.poll(() => page.locator("tr[data-status=revoked]").count()).toBe(6);
    expect(await page.getByRole("button", { name: "Revoke all" }).count()).toBe(0);
    const retryAll = page.getByRole("button", { name: "Retry all on chain" });
    expect(await retryAll.count()).toBe(1);
    await axe(page, "wallet with two failed on-chain revokes");
    await shots(page, "wallet-retry-all");
    await o.restorePasskey();
    await retryAll.click();
    expect(await page.textContent("[data-console=confirm]")).toContain(
      "Retry revoking on chain the 2 agent keys not yet confirmed revoked, with your passkey (one transaction)?",
    );
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => page.getAttribute("[data-step=chain]", "data-state"), { timeout: 60_000 }).toMatch(/done|failed/);
    if ((await page.getAttribute("[data-step=chain]", "data-state")) !== "done")
      throw new Error(`on-chain retry failed: ${await page.textContent("[data-step=chain]")}\n${pageLog.join("\n")}`);
    expect(await page.textContent("[data-step=db]")).toContain("Already stopped in Agent Ledger: payments stay refused.");
    expect(await page.textContent("[data-step=chain]")).toContain("all 2 agent keys revoked");
    for (const k of keys) {
      expect(await session(k.session_id)).toMatchObject({ status: "revoked", chain_revoke: { status: "confirmed", error: null } });
      expect(await keyRevoked(k.agent_key_address)).toBe(true);
    }
    await expect.poll(() => page.getByRole("button", { name: "Retry all on chain" }).count()).toBe(0);
  }, 90_000);

  it("'Load older payments' failing (the browser went offline) is said next to the button; the rows already shown stay", async () => {
    await page.goto(`${t.url}/wallet/sessions/${paging.session_id}`);
    const rows = page.locator("[data-console=payments] tbody tr");
    await expect.poll(() => rows.count()).toBe(20);
    await o.context.setOffline(true);
    try {
      await page.getByRole("button", { name: "Load older payments" }).click();
      await expect
        .poll(() => page.locator("[data-console=payments-error]").textContent())
        .toMatch(/^Older payments could not be read: .+\. Try again, or reload the page\.$/);
      expect(await page.getAttribute("[data-console=payments-error]", "role")).toBe("alert");
      expect(await rows.count()).toBe(20);
      expect(await page.getByRole("button", { name: "Load older payments" }).isEnabled()).toBe(true);
      await axe(page, "load older failed");
      await shots(page, "wallet-session-load-error");
    } finally {
      await o.context.setOffline(false);
    }
    await page.getByRole("button", { name: "Load older payments" }).click();
    await expect.poll(() => rows.count()).toBe(23);
  }, 60_000);

  it("the sign-in ending while the page is open brings back the sign-in card, saying why; signing in again shows the session", async () => {
    await page.goto(`${t.url}/wallet/sessions/${paging.session_id}`);
    const rows = page.locator("[data-console=payments] tbody tr");
    await expect.poll(() => rows.count()).toBe(20);
    await o.context.clearCookies();
    await page.getByRole("button", { name: "Load older payments" }).click();
    await expect
      .poll(() => page.locator("[data-console=signin] [role=alert]").textContent())
      .toBe("Your sign-in has ended. Sign in again with your passkey to continue.");
    await axe(page, "sign-in ended");
    await page.getByRole("button", { name: "Sign in with passkey" }).click();
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(20);
    expect(await page.locator("[data-console=signin]").count()).toBe(0);
  }, 60_000);

  it("opened at 127.0.0.1 (npm start answers there too), the sign-in says the passkey belongs to localhost and links the same page there, where it works", async () => {
    const atIp = `${t.url.replace("//localhost:", "//127.0.0.1:")}/wallet/sessions/${paging.session_id}`;
    await page.goto(atIp);
    await page.getByRole("button", { name: "Sign in with passkey" }).click();
    await expect
      .poll(() => page.locator("[data-console=signin] [role=alert]").textContent())
      .toBe(
        `Passkeys of this site belong to localhost, and this page is open at another address. Open ${t.url}/wallet/sessions/${paging.session_id} to use your passkey.`,
      );
    await axe(page, "sign-in at another address");
    await shots(page, "wallet-signin-wrong-host");
    await page.getByRole("link", { name: `Open this page at ${new URL(t.url).host}` }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/wallet/sessions/${paging.session_id}`);
    if (await page.locator("[data-console=signin]").count()) await page.getByRole("button", { name: "Sign in with passkey" }).click();
    await expect.poll(() => page.locator("[data-console=payments] tbody tr").count(), { timeout: 20_000 }).toBe(20);
  }, 60_000);
});
