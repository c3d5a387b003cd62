// `npm run registry -- add --id <id> --label <label> --category <category> --wallet 0x… [--wallet 0x…] [--track-fees] [--file registry/mainnet.json] [--no-db]`
// `npm run registry -- generate [--check]`: registry/mainnet.json and registry/testnet.json from registry/sources/ (docs/registry.md)
// `npm run registry -- discover <service URL> [--write <registry.json>] [--entity <id>]`: read a service's 402 challenge
import fs from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseRegistry } from "@agent-ledger/core";
import { addEntityToRegistryJson } from "./registry/addEntityToRegistryJson.ts";
import { applyDiscovery } from "./registry/applyDiscovery.ts";
import { buildRegistries } from "./registry/buildRegistries.ts";
import { readRegistrySources } from "./registry/readRegistrySources.ts";
import { loadRegistryFile } from "./loadRegistryFile.ts";

const USAGE = [
  "usage: npm run registry -- add --id <id> --label <label> --category <category> --wallet <0x…> [--wallet <0x…>] [--track-fees] [--file <registry.json>] [--no-db]",
  "       npm run registry -- generate [--check]",
  "       npm run registry -- discover <service URL> [--write <registry.json>] [--entity <id>]",
].join("\n");

/** A registry JSON document as the files are written: two-space indent, final newline. */
const serialize = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

async function add(values: Record<string, string | boolean | string[] | undefined>): Promise<number> {
  if (!values.id || !values.label || !values.category) {
    console.error(USAGE);
    return 2;
  }
  const file = String(values.file ?? process.env.REGISTRY_FILE ?? "registry/demo.json");
  const document = JSON.parse(await fs.readFile(file, "utf8")) as Record<string, unknown>;
  const next = addEntityToRegistryJson(document, {
    id: String(values.id),
    label: String(values.label),
    category: String(values.category),
    wallets: (values.wallet as string[] | undefined) ?? [],
    trackFees: values["track-fees"] === true,
  });
  await fs.writeFile(file, serialize(next));
  console.log(`${file}: ${String(values.id)} saved (registry_version ${String(next.registry_version)})`);
  if (values["no-db"] !== true) {
    const { createPgPool, loadRegistryIntoDb } = await import("@agent-ledger/db");
    const pool = createPgPool(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger", {
      max: 1,
      applicationName: "agent-ledger-registry",
    });
    try {
      const { registry, source } = await loadRegistryFile(file);
      parseRegistry(next);
      const result = await loadRegistryIntoDb(pool, registry, source);
      console.log(
        `database: ${result.entities} entities loaded; the running indexer picks the change up within seconds (run \`npm run rematch\` to apply it to past blocks)`,
      );
    } finally {
      await pool.end();
    }
  }
  return 0;
}

/** Writes (or with --check compares) registry/mainnet.json and registry/testnet.json. */
async function generate(check: boolean): Promise<number> {
  const { mainnet, testnet } = buildRegistries(await readRegistrySources(path.join("registry", "sources")));
  let stale = 0;
  for (const [file, document] of [
    ["registry/mainnet.json", mainnet],
    ["registry/testnet.json", testnet],
  ] as const) {
    const text = serialize(document);
    const registry = parseRegistry(document);
    const services = registry.entities.filter((e) => e.kind === "service" && e.category !== "gateway").length;
    const gateways = registry.entities.filter((e) => e.category === "gateway").length;
    const summary = `chain ${registry.chainId}: ${registry.tokens.length} tokens, ${services} services, ${gateways} gateway, ${registry.escrows.length} escrows, ${registry.fingerprintLabels.length} fingerprint groups`;
    if (check) {
      const current = await fs.readFile(file, "utf8").catch(() => "");
      if (current === text) console.log(`${file}: up to date (${summary})`);
      else {
        stale++;
        console.error(`${file}: differs from what registry/sources/ generates: run \`npm run registry -- generate\``);
      }
    } else {
      await fs.writeFile(file, text);
      console.log(`${file}: written (${summary})`);
    }
  }
  return stale ? 1 : 0;
}

async function discover(url: string | undefined, write: string | undefined, entity: string | undefined): Promise<number> {
  if (!url) {
    console.error(USAGE);
    return 2;
  }
  // loaded here: only discover needs mppx
  const { readPaymentChallenge } = await import("./registry/readPaymentChallenge.ts");
  const discovery = await readPaymentChallenge(url);
  console.log(JSON.stringify({ ...discovery, source: `discovered ${discovery.url} ${discovery.at}` }, null, 2));
  if (write) {
    const document = JSON.parse(await fs.readFile(write, "utf8")) as Record<string, unknown>;
    const { document: next, notes } = applyDiscovery(document, entity === undefined ? discovery : { ...discovery, entity });
    parseRegistry(next);
    await fs.writeFile(write, serialize(next));
    for (const note of notes) console.error(`note: ${note}`);
    console.error(`${write}: discovery recorded (the indexer loads the file at its next start)`);
  }
  return 0;
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      id: { type: "string" },
      label: { type: "string" },
      category: { type: "string" },
      wallet: { type: "string", multiple: true, default: [] },
      "track-fees": { type: "boolean", default: false },
      file: { type: "string" },
      "no-db": { type: "boolean", default: false },
      check: { type: "boolean", default: false },
      write: { type: "string" },
      entity: { type: "string" },
    },
  });
  switch (positionals[0]) {
    case "add":
      return add(values);
    case "generate":
      return generate(values.check);
    case "discover":
      return discover(positionals[1], values.write, values.entity);
    default:
      console.error(USAGE);
      return 2;
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    console.error(`registry: ${(error as Error).message}`);
    process.exitCode = 1;
  },
);
