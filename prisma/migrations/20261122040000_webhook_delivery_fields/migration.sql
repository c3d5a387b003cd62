-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "last_attempt_at" TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "verify_token_ciphertext" TEXT;

