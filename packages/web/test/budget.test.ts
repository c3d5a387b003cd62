import { describe, expect, it } from "vitest";
import { DEFAULT_DIST_DIR, readManifest } from "../src/serve/manifest.ts";

// Budgets of the explorer (docs/web.md), on what `npm run build` wrote (npm test builds first): every script and
// stylesheet the explorer's pages load, gzipped as served. GraphiQL is its own bundle, loaded only at /graphql.

export const EXPLORER_JS_BUDGET_GZ = 120 * 1024;
export const EXPLORER_CSS_BUDGET_GZ = 20 * 1024;

describe("explorer budgets", () => {
  const manifest = readManifest(process.env.WEB_DIST_DIR ?? DEFAULT_DIST_DIR);
  const gz = (files: string[]) => files.reduce((sum, f) => sum + (manifest.files[f]?.gzipBytes ?? Number.POSITIVE_INFINITY), 0);

  it(`JavaScript ≤ ${EXPLORER_JS_BUDGET_GZ / 1024} KB gzipped in total`, () => {
    const js = manifest.pages.explorer.js;
    expect(js.length).toBeGreaterThan(0);
    expect(gz(js)).toBeLessThanOrEqual(EXPLORER_JS_BUDGET_GZ);
  });
  it(`CSS ≤ ${EXPLORER_CSS_BUDGET_GZ / 1024} KB gzipped in total`, () => {
    const css = manifest.pages.explorer.css;
    expect(css.length).toBeGreaterThan(0);
    expect(gz(css)).toBeLessThanOrEqual(EXPLORER_CSS_BUDGET_GZ);
  });
  it("GraphiQL is not part of the explorer's files", () => {
    expect([...manifest.pages.explorer.js, ...manifest.pages.explorer.css].some((f) => f.includes("graphiql"))).toBe(false);
  });
});
