import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../packages/worker/test/helpers.ts";
import { keyboardReachesEverything, axe, shots as screenshots } from "./support/browser.ts";
import { SoftAuthenticator } from "../packages/api/test/support/softAuthenticator.ts";
import { call, registerUser } from "../packages/api/test/support/walletApp.ts";
import { echoVerify, signedInPage, startWebhooksConsole, type WebhooksConsoleEnv } from "./support/webhooksConsole.ts";

// The webhooks console (/webhooks) in real Chromium against the real API, PostgreSQL, Redis, the real worker
// (dispatcher + signed deliveries) and a receiver on loopback that verifies every signature: create from the page
// (agent picker, exact minimum amount), the secret shown once, the verification ping echoed → active, a test event in
// the delivery log, pause / resume, rotate (the receiver verifies with the new secret), delete; axe, keyboard,
// screenshots at 1280 and 390 px.

const AGENT = { id: "console-hooks-agent", wallet: "0x00000000000000000000000000000000000c0501" };

let env: WebhooksConsoleEnv;
let base: string;
const pageLog: string[] = [];

const shots = (page: Page, name: string) => screenshots(page, `console-${name}`);

beforeAll(async () => {
  env = await startWebhooksConsole("console-hooks", {
    registry_version: 1,
    network: "devnet",
    entities: [{ id: AGENT.id, label: "Console hooks agent", category: "agent", wallets: [AGENT.wallet] }],
  });
  base = env.base;
  // The receiver echoes the verification ping's token (as docs/webhooks.md asks) and refuses a bad signature.
  env.receiver.overrides.set("hook", (req, res) => {
    if (req.body.type === "svc.webhook.verify") {
      void echoVerify(base, req.body);
      return void res.writeHead(204).end();
    }
    res.writeHead(req.verified === false ? 401 : 204).end();
  });
}, 180_000);

afterAll(async () => {
  await env?.stop();
  if (process.env.E2E_PAGE_LOG) console.log(pageLog.join("\n"));
}, 60_000);

describe("webhooks console end to end", () => {
  it("create → active → test delivery in the log → pause/resume → rotate (new secret verifies) → delete", async () => {
    const owner = new SoftAuthenticator();
    const { jar } = await registerUser(base, owner, "hooks owner");
    // the page signs in with the same cookie the passkey sign-in sets (the wallet console test covers the passkey prompt)
    const { page } = await signedInPage(env, jar, pageLog);

    await page.goto(`${base}/webhooks`);
    await page.getByRole("button", { name: "New webhook" }).click();
    await page.getByLabel("Endpoint URL").fill(env.receiver.url("hook"));
    await page.getByLabel(/^Label/).fill("console hook");
    await page.locator("select[name=agent_id]").selectOption(AGENT.id);
    await page.getByLabel(/^Minimum amount/).fill("0.5");
    // a v0.1 ledger has no token allowlist: no token picker, the minimum is token units of 6 decimals
    await expect.poll(() => page.textContent("[data-console=min-hint]")).toMatch(/^token units \(6 decimals\)/);
    expect(await page.locator("select[name=token_address]").count()).toBe(0);
    await axe(page, "webhooks create");
    await keyboardReachesEverything(page, "webhooks create");
    await shots(page, "webhooks-create");
    await page.getByRole("button", { name: "Create webhook" }).click();
    const secret = (await page.locator("[data-console=secret]").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const list = await call(base, "GET", "/api/webhooks", { jar });
    const hook = (Array.isArray(list.body) ? list.body : list.body.items)[0];
    expect(hook.filters).toEqual({ agent_id: AGENT.id, min_amount_wei: "500000" });
    env.receiver.secrets.set(hook.id, secret);
    expect(await page.locator(`tr[data-webhook="${hook.id}"] td[data-label=Filters]`).textContent()).toBe("≥ 0.50 token units");
    await shots(page, "webhooks-created");

    await page.getByRole("link", { name: "Open the webhook" }).click();
    await expect.poll(() => page.textContent("[data-console=webhook-status]"), { timeout: 30_000 }).toBe("active");
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => page.locator("[data-console=deliveries] tr[data-status=succeeded]").count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const tests = () => env.receiver.forSubscription(hook.id).filter((r) => r.body.type === "svc.webhook.test");
    expect(tests().map((r) => r.verified)).toEqual([true]);
    // the delivery log shows the request of the test delivery's last attempt: opened with the keyboard, it is exactly
    // what the receiver got (body byte for byte, every header the page lists)
    const testDelivery = tests()[0]!;
    const deliveryId = String(testDelivery.headers["svc-delivery"]);
    await expect.poll(() => page.locator(`tr[data-request-of="${deliveryId}"] summary`).count(), { timeout: 30_000 }).toBe(1);
    const summary = page.locator(`tr[data-request-of="${deliveryId}"] summary`);
    await summary.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(`tr[data-request-of="${deliveryId}"] details`).getAttribute("open")).not.toBeNull();
    expect(await page.locator(`tr[data-request-of="${deliveryId}"] [data-console=request-body]`).textContent()).toBe(testDelivery.rawBody.toString("utf8"));
    const shownHeaders = (await page.locator(`tr[data-request-of="${deliveryId}"] [data-console=request-headers]`).textContent())!.split("\n");
    expect(shownHeaders.length).toBeGreaterThanOrEqual(5);
    for (const line of shownHeaders) {
      const at = line.indexOf(": ");
      expect(testDelivery.headers[line.slice(0, at).toLowerCase()], line).toBe(line.slice(at + 2));
    }
    expect(shownHeaders.some((l) => l.startsWith("Svc-Signature: t="))).toBe(true);
    await axe(page, "webhook detail");
    await keyboardReachesEverything(page, "webhook detail");
    await shots(page, "webhook-detail");

    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => page.textContent("[data-console=webhook-status]")).toBe("paused");
    await page.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => page.textContent("[data-console=webhook-status]")).toBe("active");

    await page.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = (await page.locator("[data-console=secret]").textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    env.receiver.secrets.set(hook.id, rotated);
    await page.getByRole("button", { name: "Send test event" }).click();
    await waitFor(() => tests().length === 2, { what: "second test event", timeoutMs: 30_000 });
    expect(tests().map((r) => r.verified)).toEqual([true, true]);

    await page.getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => page.textContent("main")).toMatch(/No webhook yet/);
    expect((await call(base, "GET", `/api/webhooks/${hook.id}`, { jar })).status).toBe(404);
  }, 180_000);
});
