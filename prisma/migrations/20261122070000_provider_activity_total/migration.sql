-- CreateTable
CREATE TABLE "provider_activity_total" (
    "provider_key" VARCHAR(42) NOT NULL,
    "pattern" TEXT NOT NULL,
    "payments_count" BIGINT NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "first_seen" TIMESTAMPTZ(6) NOT NULL,
    "last_seen" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "provider_activity_total_pkey" PRIMARY KEY ("provider_key")
);

-- CreateIndex
CREATE INDEX "provider_activity_total_order_idx" ON "provider_activity_total"("amount_sum_wei" DESC, "payments_count" DESC, "provider_key");

-- Backfill from the hourly provider rollup, which holds every routed payment of the live version
INSERT INTO "provider_activity_total" ("provider_key", "pattern", "payments_count", "amount_sum_wei", "first_seen", "last_seen")
SELECT "provider_key", min("pattern"), sum("payments_count"), sum("amount_sum_wei"), min("bucket"), max("bucket")
FROM "provider_activity_hourly"
GROUP BY "provider_key";
