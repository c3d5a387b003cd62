-- AlterTable
ALTER TABLE "wallet_payments" ADD COLUMN     "valid_before" TIMESTAMPTZ(6);

-- CreateIndex
CREATE INDEX "wallet_payments_status_created_at_idx" ON "wallet_payments"("status", "created_at");

