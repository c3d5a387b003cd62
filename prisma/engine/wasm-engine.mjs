// Loads Prisma's schema engine compiled to WASM (npm @prisma/schema-engine-wasm) and connects it to
// PostgreSQL through @prisma/adapter-pg. Used only by the offline stand-in for the native binary and the drift check.
// These npm packages are devDependencies of the database package (packages/db/package.json), which runs the checks;
// this folder holds only what Prisma owns, so they are resolved from there.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(path.resolve(import.meta.dirname, "..", "..", "packages", "db", "package.json"));
/** pg as the database package resolves it (the shim uses it too). */
export const pg = require("pg");
const { PrismaPg } = require("@prisma/adapter-pg");
const { bindMigrationAwareSqlAdapterFactory } = require("@prisma/driver-adapter-utils");

async function loadEngineClass() {
  const glueDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const glue = await import(pathToFileURL(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg")).href);
  const wasm = new WebAssembly.Module(fs.readFileSync(path.join(glueDir, "schema_engine_bg.wasm")));
  const instance = new WebAssembly.Instance(wasm, { "./schema_engine_bg.js": glue });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue.SchemaEngine;
}

/** Connection URL → pg config object. (pg ignores a `database` override when given a connectionString.) */
export function pgConfigFromUrl(url) {
  const u = new URL(url);
  const schema = u.searchParams.get("schema") ?? undefined;
  const config = {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || "postgres",
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)) || "postgres",
  };
  if (schema) config.options = `-c search_path="${schema}"`;
  return { config, schema };
}

// adapter-pg 7.10.1 cannot deserialize some catalog column types ("char", name, regproc…) that the
// engine's introspection selects; they are plain text for our purposes.
const CATALOG_OIDS_AS_TEXT = new Set([18, 19, 22, 24, 30, 194, 705, 2205, 2206, 4089]);
function textifyCatalogColumns(result) {
  for (const r of Array.isArray(result) ? result : [result]) {
    for (const field of r?.fields ?? []) if (CATALOG_OIDS_AS_TEXT.has(field.dataTypeID)) field.dataTypeID = 25;
  }
  return result;
}
class CatalogTextClient extends pg.Client {
  query(config, values, callback) {
    if (typeof values === "function") [callback, values] = [values, undefined];
    if (typeof callback === "function") return super.query(config, values, (err, res) => callback(err, res && textifyCatalogColumns(res)));
    const pending = super.query(config, values);
    return pending && typeof pending.then === "function" ? pending.then(textifyCatalogColumns) : pending;
  }
}

async function runAdmin(config, sql) {
  const client = new pg.Client(config);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Driver-adapter factory for the engine, with a shadow database that is dropped only after its pool closed. */
export function createMigrateAdapterFactory(url) {
  const { config, schema } = pgConfigFromUrl(url);
  const options = schema ? { schema } : undefined;
  const main = new PrismaPg(new pg.Pool({ ...config, Client: CatalogTextClient }), options);
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: () => main.connect(),
    async connectToShadowDb() {
      const name = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
      await runAdmin(config, `CREATE DATABASE "${name}"`);
      const pool = new pg.Pool({ ...config, database: name, max: 1, Client: CatalogTextClient });
      const adapter = await new PrismaPg(pool, options).connect();
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await pool.end();
        await runAdmin(config, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      };
      return adapter;
    },
  };
}

// One WASM instance per process: the generated glue module holds a single instance, and loading a second one would
// pull the memory from under an engine still running on the first.
let engineClass;

export async function openSchemaEngine({ url, schemaPaths = [], log = () => {} }) {
  const SchemaEngine = await (engineClass ??= loadEngineClass());
  const datamodels = schemaPaths.length ? schemaPaths.map((p) => [p, fs.readFileSync(p, "utf8")]) : undefined;
  return SchemaEngine.new({ datamodels }, log, bindMigrationAwareSqlAdapterFactory(createMigrateAdapterFactory(url)));
}
