-- Methodology v0.2 registry data (docs/methodology.md, "Registry additions"): the token allowlist, the event each
-- trusted settlement contract declares, and what each registry file said about its network.

-- CreateTable
CREATE TABLE "tokens" (
    "address" VARCHAR(42) NOT NULL,
    "symbol" TEXT NOT NULL,
    "decimals" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tokens_pkey" PRIMARY KEY ("address")
);

-- AlterTable: NULL event_topic0 = the devnet `Settlement` (0x1c5bd824…dd3f, provider topic 2)
ALTER TABLE "settlement_contracts" ADD COLUMN "event_topic0" VARCHAR(66),
ADD COLUMN "provider_topic" INTEGER NOT NULL DEFAULT 2,
ADD COLUMN "event_verified" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "registry_sources" (
    "source" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "registry_version" INTEGER NOT NULL,
    "explorer_base_url" TEXT,
    "loaded_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "registry_sources_pkey" PRIMARY KEY ("source")
);
