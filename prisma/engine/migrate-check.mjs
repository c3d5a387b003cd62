#!/usr/bin/env node
// Drift check without Prisma's CLI: asks the WASM schema engine for the difference between the schema the migrations
// build (replayed in a throw-away shadow database) and schema.prisma. Exit 0: they agree; exit 2: they differ (the SQL
// a new migration would need is printed). `npm run db:check` runs it. DATABASE_URL (or the local default) is only
// used to create and drop the shadow database.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { openSchemaEngine } from "./wasm-engine.mjs";

const packageDir = path.resolve(import.meta.dirname, "..");

/** { exitCode: 0 | 2, script }: the SQL that would bring the migrations to `schemaPath` (a comment when none is needed). */
export async function diffMigrationsToSchema({
  url = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
  schemaPath = path.join(packageDir, "schema.prisma"),
  migrationsDir = path.join(packageDir, "migrations"),
} = {}) {
  const engine = await openSchemaEngine({ url, schemaPaths: [schemaPath] });
  const migrationDirectories = fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => ({
      path: name,
      migrationFile: { path: "migration.sql", content: { tag: "ok", value: fs.readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8") } },
    }));
  const lockfile = path.join(migrationsDir, "migration_lock.toml");
  const result = await engine.diff({
    from: {
      tag: "migrations",
      baseDir: migrationsDir,
      lockfile: { path: "migration_lock.toml", content: fs.existsSync(lockfile) ? fs.readFileSync(lockfile, "utf8") : null },
      migrationDirectories,
      shadowDbInitScript: "",
    },
    to: { tag: "schemaDatamodel", files: [{ path: schemaPath, content: fs.readFileSync(schemaPath, "utf8") }] },
    script: true,
    shadowDatabaseUrl: null,
    exitCode: true,
    filters: { externalTables: [], externalEnums: [] },
  });
  return { exitCode: result.exitCode ?? 0, script: result.stdout ?? "" };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { exitCode, script } = await diffMigrationsToSchema();
  if (exitCode === 0) console.log("No difference detected: the migrations build exactly schema.prisma.");
  else console.log(`schema.prisma and the migrations differ; a new migration needs:\n\n${script}`);
  process.exit(exitCode);
}
