import type pg from "pg";

/**
 * Takes the session-level advisory lock of `name` on `client`, waiting (polling) while another process
 * holds it. The lock lives as long as the client's connection: a killed process releases it.
 * Returns a function that releases it.
 */
export async function acquireAdvisoryLock(
  client: pg.ClientBase,
  name: string,
  options: { pollMs?: number; signal?: AbortSignal; onWait?: () => void } = {},
): Promise<() => Promise<void>> {
  const { pollMs = 1_000, signal, onWait } = options;
  let announced = false;
  for (;;) {
    const { rows } = await client.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [name]);
    if (rows[0].ok) break;
    if (!announced) {
      onWait?.();
      announced = true;
    }
    if (signal?.aborted) throw new Error(`gave up waiting for lock "${name}"`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return async () => {
    await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [name]);
  };
}
