-- wallet_payments_session_id_idx (session_id) is a prefix of wallet_payments_session_id_created_at_id_idx
-- (session_id, created_at DESC, id DESC), which serves every lookup by session (the pay path's replay and cap reads,
-- the owner console's pages, the foreign key): one index write less per payment.
-- DropIndex
DROP INDEX "wallet_payments_session_id_idx";
