import { migrateDeploy } from "@agent-ledger/db";
import { prepareTemplateDatabase } from "@agent-ledger/db/testing";

// Once per test run: a migrated template database that each test file copies (see createTestDatabase).
export default async function setup() {
  await prepareTemplateDatabase((url) => migrateDeploy(url, { quiet: true }));
}
