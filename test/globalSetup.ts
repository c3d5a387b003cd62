import { migrateDeploy } from "@agent-ledger/db";
import { prepareTemplateDatabase } from "@agent-ledger/db/testing";

// Once per test run: a migrated template database that each test file copies (createTestDatabase),
// named after this run so concurrent runs on one PostgreSQL stay apart. Teardown drops this run's databases.
export default async function setup() {
  return prepareTemplateDatabase((url) => migrateDeploy(url, { quiet: true }));
}
