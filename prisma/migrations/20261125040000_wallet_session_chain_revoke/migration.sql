-- The owner's revoke (docs/wallet.md § Owner console): the on-chain step's state per session, so a failed one can be retried.
-- AlterTable
ALTER TABLE "wallet_sessions" ADD COLUMN     "revoked_by" TEXT,
ADD COLUMN     "chain_revoke_status" TEXT,
ADD COLUMN     "chain_revoke_tx_hash" VARCHAR(66),
ADD COLUMN     "chain_revoke_error" TEXT,
ADD COLUMN     "chain_revoke_updated_at" TIMESTAMPTZ(6);

-- CreateIndex
CREATE INDEX "wallet_payments_session_id_created_at_id_idx" ON "wallet_payments"("session_id", "created_at" DESC, "id" DESC);
