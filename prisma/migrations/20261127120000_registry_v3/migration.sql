-- Registry v3 (docs/registry.md): MPP serverIds that name a service, session escrows (each also an entity of kind
-- `escrow` holding its address as a wallet), client-id labels, and the facts' sources. `source` columns name the
-- registry file (as in the other registry tables); `fact_source` says where a fact comes from (a public repository,
-- or `discovered <url> <time>`). Entities gain the service directory's metadata. Only new nullable columns or new
-- tables: nothing is rewritten.

-- AlterTable
ALTER TABLE "entities" ADD COLUMN     "categories" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "fact_source" TEXT,
ADD COLUMN     "service_url" TEXT;

-- AlterTable
ALTER TABLE "entity_wallets" ADD COLUMN     "fact_source" TEXT;

-- CreateTable
CREATE TABLE "server_ids" (
    "fingerprint" VARCHAR(22) NOT NULL,
    "entity_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "fact_source" TEXT,
    "registry_source" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "server_ids_pkey" PRIMARY KEY ("fingerprint")
);

-- CreateTable
CREATE TABLE "escrows" (
    "address" VARCHAR(42) NOT NULL,
    "entity_id" TEXT NOT NULL,
    "abi" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "token_address" VARCHAR(42),
    "fact_source" TEXT,
    "source" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "escrows_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "client_labels" (
    "fingerprint" VARCHAR(22) NOT NULL,
    "label" TEXT NOT NULL,
    "fact_source" TEXT,
    "source" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_labels_pkey" PRIMARY KEY ("fingerprint")
);

-- CreateIndex
CREATE INDEX "server_ids_entity_id_idx" ON "server_ids"("entity_id");

-- CreateIndex
CREATE INDEX "escrows_entity_id_idx" ON "escrows"("entity_id");

-- AddForeignKey
ALTER TABLE "server_ids" ADD CONSTRAINT "server_ids_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escrows" ADD CONSTRAINT "escrows_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
