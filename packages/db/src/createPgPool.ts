import pg from "pg";

// NUMERIC (oid 1700) and INT8 (oid 20) come back as strings from `pg` by default; keep it that way so
// amounts never pass through a JS number. Callers convert with BigInt().

/** A `pg` pool: the one way the code reaches PostgreSQL (queries, transactions, LISTEN/NOTIFY, advisory locks). */
export function createPgPool(
  connectionString: string,
  options: { max?: number; applicationName?: string /** 0 (default) = wait forever for a connection. */; connectionTimeoutMillis?: number } = {},
): pg.Pool {
  return new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "agent-ledger",
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 0,
  });
}
