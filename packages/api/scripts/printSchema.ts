// Prints the GraphQL schema to packages/api/schema.graphql (the committed copy a test compares against).
// Usage: npx tsx packages/api/scripts/printSchema.ts [--check]
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { printSchema } from "../src/graphql/graphqlJs.ts";
import { buildSchema } from "../src/schema/index.ts";

export const SCHEMA_FILE = path.resolve(import.meta.dirname, "..", "schema.graphql");

export function printedSchema(): string {
  return `${printSchema(buildSchema())}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const text = printedSchema();
  if (process.argv.includes("--check")) {
    const current = readFileSync(SCHEMA_FILE, "utf8");
    if (current !== text) {
      console.error(`${SCHEMA_FILE} is out of date: run npx tsx packages/api/scripts/printSchema.ts`);
      process.exit(1);
    }
    console.log("schema.graphql is up to date");
  } else {
    writeFileSync(SCHEMA_FILE, text);
    console.log(`wrote ${SCHEMA_FILE}`);
  }
}
