import type pg from "pg";

/**
 * The highest agent_events id below which no row can still appear. Ids come from a sequence, so a
 * writer that took id 41 may commit after one that took 42: a cursor that jumped to 42 would miss
 * 41 forever. Briefly taking SHARE on the table waits for every in-flight insert to commit or roll
 * back (and holds new ones for the few microseconds until COMMIT); after that, every id up to the
 * current max is final. Readers are never blocked (SHARE does not conflict with ACCESS SHARE).
 */
export async function readWatermark(client: pg.ClientBase, options: { lockTimeoutMs?: number } = {}): Promise<bigint> {
  const timeout = Math.max(1, Math.round(options.lockTimeoutMs ?? 5_000));
  try {
    // One round trip (simple-query protocol, no parameters): the lock is held for microseconds.
    const results = (await client.query(
      `BEGIN; SET LOCAL lock_timeout = ${timeout}; LOCK TABLE agent_events IN SHARE MODE;
       SELECT COALESCE(max(id), 0)::text AS max FROM agent_events; COMMIT`,
    )) as unknown as pg.QueryResult<{ max: string }>[];
    return BigInt(results[3]!.rows[0]!.max);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** The cursor and max(id) without any lock, in one round trip: "is there anything past the cursor at all?" */
export async function probeCursor(client: pg.ClientBase, cursorId: string): Promise<{ cursor: bigint | null; max: bigint }> {
  const { rows } = await client.query<{ cursor: string | null; max: string }>(
    "SELECT (SELECT last_event_id::text FROM event_cursors WHERE id = $1) AS cursor, COALESCE((SELECT max(id) FROM agent_events), 0)::text AS max",
    [cursorId],
  );
  return { cursor: rows[0]!.cursor === null ? null : BigInt(rows[0]!.cursor), max: BigInt(rows[0]!.max) };
}
