import { createTestDatabase } from "@agent-ledger/db/testing";
import { loadMatchContext } from "@agent-ledger/db";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rematch } from "../src/rematch.ts";
import { claimRollupsVersion } from "../src/store/claimRollupsVersion.ts";
import { EXPLORER } from "./helpers.ts";

// Switching METHODOLOGY_VERSION on an empty ledger (what `npm start` leaves for a new devnet): the remedy the indexer
// prints, `rematch --version X --rebuild-rollups`, must make the rollups hold X even though no raw log is stored.
describe("switching the rollups' methodology version on an empty ledger", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it("rematch --rebuild-rollups records the new version with no rows to rebuild", async () => {
    await claimRollupsVersion(client, "v0.2");
    await expect(claimRollupsVersion(client, "v0.1")).rejects.toThrow(/hold methodology v0.2, not v0.1/);
    const context = await loadMatchContext(client, EXPLORER);
    const result = await rematch(client, { version: "v0.1", maintainRollups: true, rebuildAllRollups: true, context });
    expect(result.blocks).toBeNull();
    await claimRollupsVersion(client, "v0.1"); // accepted: the indexer with METHODOLOGY_VERSION=v0.1 starts
    await expect(claimRollupsVersion(client, "v0.2")).rejects.toThrow(/hold methodology v0.1, not v0.2/);
  });

  it("a partial rematch (a block range) of an empty ledger claims nothing", async () => {
    const context = await loadMatchContext(client, EXPLORER);
    await rematch(client, { version: "v0.2", maintainRollups: true, rebuildAllRollups: true, context, fromBlock: 1n, toBlock: 10n });
    await expect(claimRollupsVersion(client, "v0.2")).rejects.toThrow(/hold methodology v0.1/);
  });
});
