-- Read API: trigram search over entity ids/labels and address labels, and newest-first pages of an entity's rows.
-- pg_trgm ships with PostgreSQL (contrib). schema.prisma declares the GIN indexes with raw("gin_trgm_ops").
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "address_labels_label_trgm_idx" ON "address_labels" USING GIN ("label" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "agent_events_agent_id_id_idx" ON "agent_events"("agent_id", "id");

-- CreateIndex
CREATE INDEX "entities_id_trgm_idx" ON "entities" USING GIN ("id" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "entities_label_trgm_idx" ON "entities" USING GIN ("label" gin_trgm_ops);
