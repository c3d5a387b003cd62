import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";

// The README's picture of the explorer is made by the browser test, not by hand: with UPDATE_SCREENSHOTS=1 the test
// writes the first screen (1280 × 800 px) to docs/images/<name>.png, which is committed. Ordinary runs write nothing
// there, so they never dirty the tree. Regenerate: UPDATE_SCREENSHOTS=1 npx vitest run <the explorer browser test>.

/** The repository root: the nearest folder above this file holding ARCHITECTURE.md (wherever the tests live). */
function repoRoot(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "ARCHITECTURE.md"))) return dir;
    if (path.dirname(dir) === dir) throw new Error("docScreenshot: no ARCHITECTURE.md above the test");
  }
}

/** With UPDATE_SCREENSHOTS=1, the first screen of `page` at 1280 × 800 px to docs/images/<name>.png; returns the path written, or null. */
export async function docScreenshot(page: Page, name: string): Promise<string | null> {
  if (process.env.UPDATE_SCREENSHOTS !== "1") return null;
  const file = path.join(repoRoot(), "docs", "images", `${name}.png`);
  mkdirSync(path.dirname(file), { recursive: true });
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForTimeout(300); // charts follow their box
  await page.screenshot({ path: file, animations: "disabled" });
  if (before) await page.setViewportSize(before);
  return file;
}
