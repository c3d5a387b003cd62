-- Per-token entity and provider rollups (docs/methodology.md, "API per-token breakdowns"): the entity's payments
-- (sent + received) and fees, and what reached each gateway provider, split by token, so that every amount the API
-- sums also comes per token. Same rules as entity_activity_* / provider_activity_* (rows of the rollups' version).

-- CreateTable
CREATE TABLE "entity_token_activity_hourly" (
    "entity_id" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "fee_count" INTEGER NOT NULL DEFAULT 0,
    "fee_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "entity_token_activity_hourly_pkey" PRIMARY KEY ("entity_id","bucket","token_address")
);

-- CreateTable
CREATE TABLE "entity_token_activity_daily" (
    "entity_id" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "fee_count" INTEGER NOT NULL DEFAULT 0,
    "fee_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "entity_token_activity_daily_pkey" PRIMARY KEY ("entity_id","bucket","token_address")
);

-- CreateTable
CREATE TABLE "provider_token_activity_hourly" (
    "provider_key" VARCHAR(42) NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "provider_token_activity_hourly_pkey" PRIMARY KEY ("provider_key","bucket","token_address")
);

-- CreateTable
CREATE TABLE "provider_token_activity_daily" (
    "provider_key" VARCHAR(42) NOT NULL,
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "provider_token_activity_daily_pkey" PRIMARY KEY ("provider_key","bucket","token_address")
);

-- Backfill from the rows of the version the rollups hold: entities count payment_sent / payment_received / fee_paid.
INSERT INTO "entity_token_activity_hourly" ("entity_id", "bucket", "token_address", "payments_count", "amount_sum_wei", "fee_count", "fee_sum_wei")
SELECT agent_id, date_trunc('hour', ts, 'UTC'), token_address,
       count(*) FILTER (WHERE kind <> 'fee_paid'), coalesce(sum(amount_wei) FILTER (WHERE kind <> 'fee_paid'), 0),
       count(*) FILTER (WHERE kind = 'fee_paid'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)
FROM "agent_events"
WHERE kind IN ('payment_sent', 'payment_received', 'fee_paid')
  AND methodology_version = (SELECT methodology_version FROM "rollups_version")
GROUP BY 1, 2, 3;

INSERT INTO "entity_token_activity_daily" ("entity_id", "bucket", "token_address", "payments_count", "amount_sum_wei", "fee_count", "fee_sum_wei")
SELECT entity_id, date_trunc('day', bucket, 'UTC'), token_address, sum(payments_count), sum(amount_sum_wei), sum(fee_count), sum(fee_sum_wei)
FROM "entity_token_activity_hourly" GROUP BY 1, 2, 3;

-- Providers: each payment once, v0.1 every routed payment, v0.2 settlement legs by address and payments routed by an
-- unlinked fingerprint (as provider_activity_*).
INSERT INTO "provider_token_activity_hourly" ("provider_key", "bucket", "token_address", "payments_count", "amount_sum_wei")
SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END, date_trunc('hour', ts, 'UTC'), token_address,
       count(*), sum(amount_wei)
FROM (SELECT DISTINCT ON (tx_hash, log_index) ts, token_address, amount_wei, kind, routed_to_address, routed_fingerprint, methodology_version
      FROM "agent_events"
      WHERE kind <> 'fee_paid' AND methodology_version = (SELECT methodology_version FROM "rollups_version")
      ORDER BY tx_hash, log_index) p
WHERE CASE WHEN methodology_version = 'v0.1'
        THEN kind IN ('payment_sent', 'payment_received') AND (routed_to_address <> '' OR routed_fingerprint IS NOT NULL)
        ELSE (kind IN ('settlement_sent', 'settlement_received') AND routed_to_address <> '')
          OR (kind IN ('payment_sent', 'payment_received') AND routed_to_address = '' AND routed_fingerprint IS NOT NULL) END
GROUP BY 1, 2, 3;

INSERT INTO "provider_token_activity_daily" ("provider_key", "bucket", "token_address", "payments_count", "amount_sum_wei")
SELECT provider_key, date_trunc('day', bucket, 'UTC'), token_address, sum(payments_count), sum(amount_sum_wei)
FROM "provider_token_activity_hourly" GROUP BY 1, 2, 3;
