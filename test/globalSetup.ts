import { existsSync } from "node:fs";
import path from "node:path";
import { migrateDeploy } from "@agent-ledger/db";
import { DEFAULT_DIST_DIR } from "@agent-ledger/web";
import { buildWebAssets } from "../packages/web/scripts/build.ts";
import { prepareTemplateDatabase } from "@agent-ledger/db/testing";

// Once per test run: a migrated template database that each test file copies (createTestDatabase),
// named after this run so concurrent runs on one PostgreSQL stay apart. Teardown drops this run's databases.
export default async function setup() {
  // The API serves the web pages from packages/web/dist (`npm run build`, which `npm test` runs first); a bare
  // `npx vitest run <file>` on a fresh clone builds them here once.
  if (!existsSync(path.join(DEFAULT_DIST_DIR, "manifest.json"))) await buildWebAssets();
  return prepareTemplateDatabase((url) => migrateDeploy(url, { quiet: true }));
}
