import { existsSync } from "node:fs";
import path from "node:path";
// Relative source imports: vitest's main process resolves workspace packages without the "agent-ledger-source" condition (it
// would load their build output, dist/, which may be stale or absent); test files and the processes they spawn do
// use the sources (vitest.config.ts).
import { migrateDeploy } from "./packages/db/src/index.ts";
import { DEFAULT_DIST_DIR } from "./packages/web/src/index.ts";
import { buildWebAssets } from "./packages/web/scripts/build.ts";
import { prepareTemplateDatabase } from "./packages/db/src/testing.ts";

// Once per test run: a migrated template database that each test file copies (createTestDatabase),
// named after this run so concurrent runs on one PostgreSQL stay apart. Teardown drops this run's databases.
export default async function setup() {
  // The API serves the web pages from packages/web/dist (`npm run build`, which `npm test` runs first); a bare
  // `npx vitest run <file>` on a fresh clone builds them here once.
  if (!existsSync(path.join(DEFAULT_DIST_DIR, "manifest.json"))) await buildWebAssets();
  return prepareTemplateDatabase(async (url) => {
    await migrateDeploy(url, { quiet: true });
  });
}
