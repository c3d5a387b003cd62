import type pg from "pg";

/**
 * Runs `fn` on one pooled connection inside BEGIN … COMMIT; any throw rolls back (a failed ROLLBACK is ignored: the
 * connection is released either way) and is rethrown. The registry load, the wallet and the webhook services share it.
 */
export async function inTransaction<T>(db: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
