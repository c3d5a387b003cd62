-- Per-token ledger rollups (docs/methodology.md, "API per-token breakdowns"): the dashboard's txCount / amountSumWei
-- split by token, so amounts of different tokens are never only seen added together. Same rules as the ledger
-- rollups: each activity payment once, fees and (v0.2) settlement legs and funding excluded.

-- CreateTable
CREATE TABLE "ledger_token_activity_hourly" (
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_token_activity_hourly_pkey" PRIMARY KEY ("bucket","token_address")
);

-- CreateTable
CREATE TABLE "ledger_token_activity_daily" (
    "bucket" TIMESTAMPTZ(6) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "payments_count" INTEGER NOT NULL DEFAULT 0,
    "amount_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_token_activity_daily_pkey" PRIMARY KEY ("bucket","token_address")
);

-- Backfill from the rows of the version the rollups hold
INSERT INTO "ledger_token_activity_hourly" ("bucket", "token_address", "payments_count", "amount_sum_wei")
SELECT date_trunc('hour', ts, 'UTC'), token_address, count(*), sum(amount_wei)
FROM (SELECT DISTINCT ON (tx_hash, log_index) ts, token_address, amount_wei FROM "agent_events"
      WHERE kind IN ('payment_sent', 'payment_received')
        AND methodology_version = (SELECT methodology_version FROM "rollups_version")
      ORDER BY tx_hash, log_index) p
GROUP BY 1, 2;

INSERT INTO "ledger_token_activity_daily" ("bucket", "token_address", "payments_count", "amount_sum_wei")
SELECT date_trunc('day', bucket, 'UTC'), token_address, sum(payments_count), sum(amount_sum_wei)
FROM "ledger_token_activity_hourly" GROUP BY 1, 2;
