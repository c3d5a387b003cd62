-- AlterTable
ALTER TABLE "webauthn_challenges" ADD COLUMN     "client_key" TEXT;

-- CreateIndex
CREATE INDEX "webauthn_challenges_client_key_expires_at_idx" ON "webauthn_challenges"("client_key", "expires_at");
