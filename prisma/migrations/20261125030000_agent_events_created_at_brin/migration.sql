-- Webhook recovery (POST /api/webhooks/{id}/recover) reads the rows recorded since a time: a BRIN index on
-- created_at (rows are appended in time order) finds the first such id without reading older history, and
-- costs the indexer's write path almost nothing.
-- CreateIndex
CREATE INDEX "agent_events_created_at_idx" ON "agent_events" USING BRIN ("created_at");
