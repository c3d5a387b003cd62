import path from "node:path";

// Read by Prisma's CLI, which is not installed by default: `npm run prisma -- <command>` (prisma/package.json) fetches the
// pinned version with `npm exec` when a schema change needs it (docs/operations.md → Database migrations). A plain object, so this file needs
// nothing from the CLI's packages.
//
// Prisma's CLI downloads a native schema-engine binary, which these machines cannot reach. Unless
// PRISMA_NATIVE_SCHEMA_ENGINE is set (a machine with internet may use the real binary), run the WASM
// engine from npm behind a stand-in that speaks the binary's protocol (engine/schema-engine-shim.mjs).
if (!process.env.PRISMA_NATIVE_SCHEMA_ENGINE) {
  process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(import.meta.dirname, "engine", "schema-engine-shim.mjs");
}

export default {
  schema: "schema.prisma",
  migrations: { path: "migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger" },
};
