-- CreateTable
CREATE TABLE "entity_activity_total" (
    "entity_id" TEXT NOT NULL,
    "sent_count" BIGINT NOT NULL DEFAULT 0,
    "sent_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "received_count" BIGINT NOT NULL DEFAULT 0,
    "received_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "fee_count" BIGINT NOT NULL DEFAULT 0,
    "fee_sum_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "entity_activity_total_pkey" PRIMARY KEY ("entity_id")
);


-- Backfill from the daily entity rollup, which holds every row of the live version
INSERT INTO "entity_activity_total" ("entity_id", "sent_count", "sent_sum_wei", "received_count", "received_sum_wei", "fee_count", "fee_sum_wei")
SELECT "entity_id", sum("sent_count"), sum("sent_sum_wei"), sum("received_count"), sum("received_sum_wei"), sum("fee_count"), sum("fee_sum_wei")
FROM "entity_activity_daily"
GROUP BY "entity_id";
