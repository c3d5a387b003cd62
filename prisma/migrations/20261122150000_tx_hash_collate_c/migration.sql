-- Transaction hashes compare byte by byte (COLLATE "C"): they are lowercase hex, so the order is the same as under any
-- locale, and the key indexes of raw_logs and agent_events (both led by tx_hash) stop paying for locale-aware string
-- comparison on every insert. Measured: 6–10 % less PostgreSQL CPU on the indexer's write path (BENCHMARKS.md, session 5).
-- Prisma's schema language cannot express a column collation, so it lives only here (see prisma/schema.prisma).
-- The two key indexes are rebuilt by this statement.
ALTER TABLE "raw_logs" ALTER COLUMN "tx_hash" TYPE VARCHAR(66) COLLATE "C";
ALTER TABLE "agent_events" ALTER COLUMN "tx_hash" TYPE VARCHAR(66) COLLATE "C";
