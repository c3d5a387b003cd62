// `npm run registry -- add --id <id> --label <label> --category <category> --wallet 0x… [--wallet 0x…] [--track-fees] [--file registry/mainnet.json] [--no-db]`
import fs from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import { addEntityToRegistryJson } from "./registry/addEntityToRegistryJson.ts";
import { loadRegistryFile } from "./loadRegistryFile.ts";

const USAGE = "usage: npm run registry -- add --id <id> --label <label> --category <category> --wallet <0x…> [--wallet <0x…>] [--track-fees] [--file <registry.json>] [--no-db]";

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      id: { type: "string" }, label: { type: "string" }, category: { type: "string" },
      wallet: { type: "string", multiple: true, default: [] }, "track-fees": { type: "boolean", default: false },
      file: { type: "string", default: process.env.REGISTRY_FILE ?? "registry/demo.json" }, "no-db": { type: "boolean", default: false },
    },
  });
  if (positionals[0] !== "add" || !values.id || !values.label || !values.category) {
    console.error(USAGE);
    return 2;
  }
  const file = values.file!;
  const document = JSON.parse(await fs.readFile(file, "utf8")) as Record<string, unknown>;
  const next = addEntityToRegistryJson(document, { id: values.id, label: values.label, category: values.category, wallets: values.wallet!, trackFees: values["track-fees"] });
  await fs.writeFile(file, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`${file}: ${values.id} saved (registry_version ${next.registry_version})`);
  if (!values["no-db"]) {
    const pool = createPgPool(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger", { max: 1, applicationName: "agent-ledger-registry" });
    try {
      const { registry, source } = await loadRegistryFile(file);
      parseRegistry(next);
      const result = await loadRegistryIntoDb(pool, registry, source);
      console.log(`database: ${result.entities} entities loaded; the running indexer picks the change up within seconds (run \`npm run rematch\` to apply it to past blocks)`);
    } finally {
      await pool.end();
    }
  }
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    console.error(`registry: ${(error as Error).message}`);
    process.exitCode = 1;
  },
);
