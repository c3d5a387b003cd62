import type pg from "pg";

/** How many tokens the registry allowlist holds (methodology v0.2 refuses to run with none). */
export async function countTokens(db: pg.Pool | pg.ClientBase): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM tokens");
  return rows[0]!.n;
}
