import type pg from "pg";

export class RollupsVersionError extends Error {
  constructor(stored: string, wanted: string) {
    super(
      `the rollup tables hold methodology ${stored}, not ${wanted}: run \`npm run rematch -- --version ${wanted} --rebuild-rollups\` ` +
        `(with METHODOLOGY_VERSION=${wanted}) to switch, or set METHODOLOGY_VERSION=${stored}`,
    );
    this.name = "RollupsVersionError";
  }
}

/**
 * The rollup tables hold one methodology version. Records `version` when none is recorded (a new install) and
 * returns; throws RollupsVersionError when they hold another one (mixing two versions' numbers would be wrong).
 */
export async function claimRollupsVersion(client: pg.ClientBase, version: string): Promise<void> {
  await client.query("INSERT INTO rollups_version (id, methodology_version) VALUES (true, $1) ON CONFLICT (id) DO NOTHING", [version]);
  const { rows } = await client.query<{ methodology_version: string }>("SELECT methodology_version FROM rollups_version");
  const stored = rows[0]!.methodology_version;
  if (stored !== version) throw new RollupsVersionError(stored, version);
}

/** After a full rollup rebuild under `version` (rematch --rebuild-rollups): the tables now hold it. */
export async function recordRollupsVersion(client: pg.ClientBase, version: string): Promise<void> {
  await client.query(
    `INSERT INTO rollups_version (id, methodology_version) VALUES (true, $1)
     ON CONFLICT (id) DO UPDATE SET methodology_version = EXCLUDED.methodology_version, updated_at = now()`,
    [version],
  );
}
