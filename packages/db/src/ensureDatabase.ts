import pg from "pg";

/** Creates the database named in `connectionString` when it does not exist yet. Returns true if created. */
export async function ensureDatabase(connectionString: string): Promise<boolean> {
  const url = new URL(connectionString);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name) throw new Error("DATABASE_URL has no database name");
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return true;
  } catch (error) {
    // A concurrent creator won the race: fine.
    if ((error as { code?: string }).code === "42P04") return false;
    throw error;
  } finally {
    await client.end();
  }
}
