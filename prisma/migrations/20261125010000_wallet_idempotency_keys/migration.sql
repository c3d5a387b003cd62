-- AlterTable
ALTER TABLE "wallet_payments" ADD COLUMN     "spend_used_wei_after" DECIMAL(78,0);

-- CreateTable
CREATE TABLE "wallet_idempotency_keys" (
    "session_id" UUID NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "request_hash" VARCHAR(64) NOT NULL,
    "payment_id" UUID NOT NULL,
    "refusal_code" TEXT,
    "refusal_message" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_idempotency_keys_pkey" PRIMARY KEY ("session_id","key")
);

-- CreateIndex
CREATE INDEX "wallet_idempotency_keys_created_at_idx" ON "wallet_idempotency_keys"("created_at");

-- AddForeignKey
ALTER TABLE "wallet_idempotency_keys" ADD CONSTRAINT "wallet_idempotency_keys_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "wallet_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
