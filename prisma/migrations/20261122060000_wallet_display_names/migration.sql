-- AlterTable
ALTER TABLE "wallet_users" ADD COLUMN     "display_name" TEXT;

-- AlterTable
ALTER TABLE "webauthn_challenges" ADD COLUMN     "display_name" TEXT;

