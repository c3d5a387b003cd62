-- Methodology v0.3 row fields (docs/methodology.md, v0.3): which rule attributed the row (`recipient_wallet`,
-- `server_id_host`, `server_id_realm`, `session_escrow`), the MPP memo's client id (`0x` + 20 hex) and a session
-- row's payment channel (`0x` + 64 hex). NULL on every v0.1 / v0.2 row: adding nullable columns without a default
-- rewrites nothing.

-- AlterTable
ALTER TABLE "agent_events" ADD COLUMN "attribution" TEXT,
ADD COLUMN "client_fingerprint" VARCHAR(22),
ADD COLUMN "channel_id" VARCHAR(66);

-- CreateIndex: a session's rows by channel (the event detail's `session`). A hash index stores no NULL key, so the
-- rows without a channel (all but session rows) add nothing to it: the indexer's write path pays only for session rows.
CREATE INDEX "agent_events_channel_id_idx" ON "agent_events" USING HASH ("channel_id");
