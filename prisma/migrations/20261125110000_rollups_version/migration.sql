-- Which methodology version the rollup tables hold (they hold exactly one: the live version). The indexer refuses to
-- add rows of another version to them, "rematch --version vX --rebuild-rollups" rebuilds them and records vX.
-- One row, id = true (the code never writes another id). No CHECK constraint: Prisma's WASM schema engine fails on one.
-- CreateTable
CREATE TABLE "rollups_version" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "methodology_version" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rollups_version_pkey" PRIMARY KEY ("id")
);

-- An install that already has ledger rows built its rollups with v0.1, the only version before this one.
INSERT INTO "rollups_version" ("id", "methodology_version") SELECT true, 'v0.1' WHERE EXISTS (SELECT 1 FROM "agent_events" LIMIT 1);
