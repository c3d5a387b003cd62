-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "entities" (
    "id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "track_fees" BOOLEAN NOT NULL DEFAULT false,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "entities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "entity_wallets" (
    "address" VARCHAR(42) NOT NULL,
    "entity_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "entity_wallets_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "address_labels" (
    "address" VARCHAR(42) NOT NULL,
    "label" TEXT NOT NULL,
    "category" TEXT,
    "source" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "address_labels_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "fingerprint_labels" (
    "fingerprint" VARCHAR(22) NOT NULL,
    "label" TEXT NOT NULL,
    "category" TEXT,
    "provider_address" VARCHAR(42),
    "source" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fingerprint_labels_pkey" PRIMARY KEY ("fingerprint")
);

-- CreateTable
CREATE TABLE "settlement_contracts" (
    "address" VARCHAR(42) NOT NULL,
    "label" TEXT NOT NULL,
    "source" TEXT NOT NULL,

    CONSTRAINT "settlement_contracts_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "raw_logs" (
    "id" BIGSERIAL NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_hash" VARCHAR(66) NOT NULL,
    "block_timestamp" TIMESTAMPTZ(6) NOT NULL,
    "tx_hash" VARCHAR(66) NOT NULL,
    "tx_index" INTEGER NOT NULL,
    "log_index" INTEGER NOT NULL,
    "address" VARCHAR(42) NOT NULL,
    "topic0" VARCHAR(66),
    "topic1" VARCHAR(66),
    "topic2" VARCHAR(66),
    "topic3" VARCHAR(66),
    "data" TEXT NOT NULL,

    CONSTRAINT "raw_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_events" (
    "id" BIGSERIAL NOT NULL,
    "ts" TIMESTAMPTZ(6) NOT NULL,
    "agent_id" TEXT NOT NULL,
    "agent_label" TEXT NOT NULL,
    "agent_category" TEXT NOT NULL,
    "counterparty_address" VARCHAR(42) NOT NULL,
    "counterparty_label" TEXT NOT NULL,
    "counterparty_category" TEXT,
    "kind" TEXT NOT NULL,
    "amount_wei" DECIMAL(78,0) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "tx_hash" VARCHAR(66) NOT NULL,
    "log_index" INTEGER NOT NULL,
    "source_block" BIGINT NOT NULL,
    "methodology_version" TEXT NOT NULL,
    "routed_to_address" VARCHAR(42) NOT NULL DEFAULT '',
    "routed_to_label" TEXT NOT NULL DEFAULT '',
    "routed_fingerprint" VARCHAR(22),
    "explorer_url" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "indexer_checkpoints" (
    "id" TEXT NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "start_block" BIGINT NOT NULL,
    "last_block" BIGINT NOT NULL,
    "last_block_hash" VARCHAR(66),
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "indexer_checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallet_users" (
    "id" UUID NOT NULL,
    "credential_id" TEXT NOT NULL,
    "cose_public_key" BYTEA NOT NULL,
    "public_key_hex" TEXT NOT NULL,
    "managed_address" VARCHAR(42) NOT NULL,
    "passkey_sign_count" BIGINT NOT NULL DEFAULT 0,
    "transports" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMPTZ(6),

    CONSTRAINT "wallet_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webauthn_challenges" (
    "id" UUID NOT NULL,
    "challenge" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "user_id" UUID,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webauthn_challenges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_sessions" (
    "id" UUID NOT NULL,
    "token_hash" VARCHAR(64) NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "device_pairings" (
    "id" UUID NOT NULL,
    "code" VARCHAR(16) NOT NULL,
    "device_id_hash" VARCHAR(64) NOT NULL,
    "agent_label" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "poll_interval_seconds" INTEGER NOT NULL DEFAULT 5,
    "last_polled_at" TIMESTAMPTZ(6),
    "user_id" UUID,
    "authorize_tx_hash" VARCHAR(66),
    "on_chain_authorized_at" TIMESTAMPTZ(6),
    "claimed_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "device_pairings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallet_sessions" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "pairing_id" UUID NOT NULL,
    "bearer_token_hash" VARCHAR(64),
    "agent_label" TEXT,
    "agent_key_address" VARCHAR(42) NOT NULL,
    "agent_key_ciphertext" TEXT NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "spend_cap_wei" DECIMAL(78,0) NOT NULL,
    "per_call_cap_wei" DECIMAL(78,0) NOT NULL,
    "spend_used_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "spend_reserved_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "revoked_at" TIMESTAMPTZ(6),
    "on_chain_authorized_at" TIMESTAMPTZ(6),
    "authorize_tx_hash" VARCHAR(66),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallet_payments" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "to_address" VARCHAR(42) NOT NULL,
    "amount_wei" DECIMAL(78,0) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "memo" TEXT,
    "status" TEXT NOT NULL,
    "tx_hash" VARCHAR(66),
    "error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_subscriptions" (
    "id" TEXT NOT NULL,
    "owner_user_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "callback_url" TEXT NOT NULL,
    "label" TEXT NOT NULL DEFAULT '',
    "filter_agent_id" TEXT NOT NULL,
    "filter_recipient_address" VARCHAR(42),
    "filter_routed_to_address" VARCHAR(42),
    "filter_min_amount_wei" DECIMAL(78,0),
    "filter_token_address" VARCHAR(42),
    "signing_secret_ciphertext" TEXT NOT NULL,
    "verify_token_hash" VARCHAR(64) NOT NULL,
    "verify_token_expires_at" TIMESTAMPTZ(6) NOT NULL,
    "verified_at" TIMESTAMPTZ(6),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "status_reason" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "subscription_id" TEXT NOT NULL,
    "event_id" BIGINT,
    "type" TEXT NOT NULL DEFAULT 'event',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_http_status" INTEGER,
    "last_error" TEXT,
    "last_response_ms" INTEGER,
    "next_attempt_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_cursors" (
    "id" TEXT NOT NULL,
    "last_event_id" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_cursors_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "entities_kind_idx" ON "entities"("kind");

-- CreateIndex
CREATE INDEX "entity_wallets_entity_id_idx" ON "entity_wallets"("entity_id");

-- CreateIndex
CREATE INDEX "raw_logs_block_number_idx" ON "raw_logs"("block_number");

-- CreateIndex
CREATE UNIQUE INDEX "raw_logs_tx_hash_log_index_key" ON "raw_logs"("tx_hash", "log_index");

-- CreateIndex
CREATE INDEX "agent_events_agent_id_ts_idx" ON "agent_events"("agent_id", "ts");

-- CreateIndex
CREATE INDEX "agent_events_ts_idx" ON "agent_events"("ts");

-- CreateIndex
CREATE INDEX "agent_events_tx_hash_idx" ON "agent_events"("tx_hash");

-- CreateIndex
CREATE INDEX "agent_events_counterparty_address_idx" ON "agent_events"("counterparty_address");

-- CreateIndex
CREATE UNIQUE INDEX "agent_events_methodology_version_tx_hash_log_index_agent_id_key" ON "agent_events"("methodology_version", "tx_hash", "log_index", "agent_id");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_users_credential_id_key" ON "wallet_users"("credential_id");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_users_managed_address_key" ON "wallet_users"("managed_address");

-- CreateIndex
CREATE UNIQUE INDEX "webauthn_challenges_challenge_key" ON "webauthn_challenges"("challenge");

-- CreateIndex
CREATE INDEX "webauthn_challenges_expires_at_idx" ON "webauthn_challenges"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "user_sessions_token_hash_key" ON "user_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "device_pairings_code_key" ON "device_pairings"("code");

-- CreateIndex
CREATE UNIQUE INDEX "device_pairings_device_id_hash_key" ON "device_pairings"("device_id_hash");

-- CreateIndex
CREATE INDEX "device_pairings_expires_at_idx" ON "device_pairings"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_sessions_pairing_id_key" ON "wallet_sessions"("pairing_id");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_sessions_bearer_token_hash_key" ON "wallet_sessions"("bearer_token_hash");

-- CreateIndex
CREATE INDEX "wallet_sessions_user_id_idx" ON "wallet_sessions"("user_id");

-- CreateIndex
CREATE INDEX "wallet_payments_session_id_idx" ON "wallet_payments"("session_id");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_owner_user_id_status_idx" ON "webhook_subscriptions"("owner_user_id", "status");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_filter_agent_id_status_idx" ON "webhook_subscriptions"("filter_agent_id", "status");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_subscription_id_event_id_key" ON "webhook_deliveries"("subscription_id", "event_id");

-- AddForeignKey
ALTER TABLE "entity_wallets" ADD CONSTRAINT "entity_wallets_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_sessions" ADD CONSTRAINT "user_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "wallet_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "device_pairings" ADD CONSTRAINT "device_pairings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "wallet_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_sessions" ADD CONSTRAINT "wallet_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "wallet_users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_sessions" ADD CONSTRAINT "wallet_sessions_pairing_id_fkey" FOREIGN KEY ("pairing_id") REFERENCES "device_pairings"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_payments" ADD CONSTRAINT "wallet_payments_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "wallet_sessions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_owner_user_id_fkey" FOREIGN KEY ("owner_user_id") REFERENCES "wallet_users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

