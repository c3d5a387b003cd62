import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";

// The browser end-to-end tests' shared set-up: Debian's Chromium through playwright-core, screenshots, axe and the
// keyboard walk (e2e/console*, e2e/wallet, e2e/explorer*).

export { freePort } from "../../packages/api/test/support/freePort.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** Where the e2e tests write their screenshots (git-ignored). */
export const SHOTS = path.resolve(import.meta.dirname, "..", "..", "packages", "web", "screenshots");

/** Headless Debian Chromium (CHROMIUM_PATH to use another); a readable error when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Debian chromium is required at ${CHROMIUM} (apt-get install chromium), or set CHROMIUM_PATH`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** Full-page screenshots of `page` at 1280 and 390 px: SHOTS/<name>-<width>.png; fails when the page is wider than the viewport. */
export async function shots(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    // Nothing may widen the page past the viewport (a long amount once did at 390 px: a sideways-scrolling page).
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > width) throw new Error(`${name}: the page is ${wide} px wide in a ${width} px viewport (see ${name}-${width}.png)`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** axe finds no serious or critical violation on `page`. */
export async function axe(page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map(
      (v) =>
        `${name}: ${v.id} (${v.impact}) ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")}`,
    ),
  ).toEqual([]);
}

/** Every visible, enabled control of `page` receives focus by pressing Tab. */
export async function keyboardReachesEverything(page: Page, name: string): Promise<void> {
  const total = await page.evaluate(() => {
    const els = [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [tabindex]")].filter(
      (el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden",
    );
    els.forEach((el, i) => (el.dataset.kb = String(i)));
    return els.length;
  });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page
    .locator("body")
    .focus()
    .catch(() => {});
  const seen = new Set<string>();
  for (let i = 0; i < total * 2 + 10; i++) {
    // a datetime-local input has several tab stops of its own
    await page.keyboard.press("Tab");
    const k = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.kb ?? null);
    if (k !== null) seen.add(k);
  }
  const missed = await page.evaluate(
    (seenKeys) =>
      [...document.querySelectorAll<HTMLElement>("[data-kb]")].filter((el) => !seenKeys.includes(el.dataset.kb!)).map((el) => el.outerHTML.slice(0, 120)),
    [...seen],
  );
  expect(missed, `${name}: controls not reachable by Tab`).toEqual([]);
}
