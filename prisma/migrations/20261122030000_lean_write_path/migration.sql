-- DropIndex
DROP INDEX "agent_events_agent_id_ts_idx";

-- DropIndex
DROP INDEX "agent_events_methodology_version_tx_hash_log_index_agent_id_key";

-- DropIndex
DROP INDEX "agent_events_ts_idx";

-- DropIndex
DROP INDEX "agent_events_tx_hash_idx";

-- DropIndex
DROP INDEX "raw_logs_block_number_idx";

-- DropIndex
DROP INDEX "raw_logs_tx_hash_log_index_key";

-- AlterTable
ALTER TABLE "raw_logs" DROP CONSTRAINT "raw_logs_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "raw_logs_pkey" PRIMARY KEY ("tx_hash", "log_index");

-- CreateIndex
CREATE UNIQUE INDEX "agent_events_tx_hash_log_index_agent_id_methodology_version_key" ON "agent_events"("tx_hash", "log_index", "agent_id", "methodology_version");

-- CreateIndex
CREATE INDEX "raw_logs_block_number_idx" ON "raw_logs" USING BRIN ("block_number");

