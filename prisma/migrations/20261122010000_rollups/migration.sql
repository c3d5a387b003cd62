-- CreateTable
CREATE TABLE "entity_activity_hourly" (
    "entity_id" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "sent_count" INTEGER NOT NULL DEFAULT 0,
    "sent_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "received_count" INTEGER NOT NULL DEFAULT 0,
    "received_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "fee_count" INTEGER NOT NULL DEFAULT 0,
    "fee_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "entity_activity_hourly_pkey" PRIMARY KEY ("entity_id","bucket")
);

-- CreateTable
CREATE TABLE "entity_activity_daily" (
    "entity_id" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "sent_count" INTEGER NOT NULL DEFAULT 0,
    "sent_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "received_count" INTEGER NOT NULL DEFAULT 0,
    "received_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "fee_count" INTEGER NOT NULL DEFAULT 0,
    "fee_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "entity_activity_daily_pkey" PRIMARY KEY ("entity_id","bucket")
);

-- CreateTable
CREATE TABLE "ledger_activity_hourly" (
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_activity_hourly_pkey" PRIMARY KEY ("bucket")
);

-- CreateTable
CREATE TABLE "ledger_activity_daily" (
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_activity_daily_pkey" PRIMARY KEY ("bucket")
);

-- CreateTable
CREATE TABLE "provider_activity_hourly" (
    "provider_key" VARCHAR(42) NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "pattern" TEXT NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "provider_activity_hourly_pkey" PRIMARY KEY ("provider_key","bucket")
);

-- CreateTable
CREATE TABLE "provider_activity_daily" (
    "provider_key" VARCHAR(42) NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "pattern" TEXT NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "provider_activity_daily_pkey" PRIMARY KEY ("provider_key","bucket")
);

-- CreateIndex
CREATE INDEX "entity_activity_hourly_bucket_idx" ON "entity_activity_hourly"("bucket");

-- CreateIndex
CREATE INDEX "entity_activity_daily_bucket_idx" ON "entity_activity_daily"("bucket");

-- CreateIndex
CREATE INDEX "provider_activity_hourly_bucket_idx" ON "provider_activity_hourly"("bucket");

-- CreateIndex
CREATE INDEX "provider_activity_daily_bucket_idx" ON "provider_activity_daily"("bucket");

