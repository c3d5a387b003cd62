// Loads the registry (REGISTRY_FILE, else the default of the indexed chain) into the database first (as the indexer does at start), then:
// `npm run rematch -- [--version v0.N] [--rebuild-rollups] [--from-block N] [--to-block N]`
// `npm run rematch -- --diff v0.1 v0.2 [--from-block N] [--to-block N]`   (reads only; prints the report as JSON)
// `npm run rematch -- --diff v0.2 v0.3`   (why.rows explains every removed / added / changed row by a v0.3 trace note)
import { parseArgs } from "node:util";
import { countTokens, createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { diffMethodologies } from "./diff/diffMethodologies.ts";
import { explorerBase, parseIndexerEnv } from "./env.ts";
import { assertRegistryFits } from "./assertRegistryFits.ts";
import { loadRegistryFile } from "./loadRegistryFile.ts";
import { registryFileForChain } from "./registryFileForChain.ts";
import { rematch } from "./rematch.ts";

const env = parseIndexerEnv();
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    version: { type: "string", default: env.METHODOLOGY_VERSION },
    diff: { type: "boolean", default: false },
    "rebuild-rollups": { type: "boolean", default: false },
    "from-block": { type: "string" },
    "to-block": { type: "string" },
  },
});
// two connections: the rematch holds one, the registry load takes the other
const pool = createPgPool(env.DATABASE_URL, { max: 2, applicationName: "agent-ledger-rematch" });
const client = await pool.connect();
const range = {
  fromBlock: values["from-block"] ? BigInt(values["from-block"]) : undefined,
  toBlock: values["to-block"] ? BigInt(values["to-block"]) : undefined,
};
try {
  // the registry file the indexer would load, so a new registry version is in effect for the rematch: REGISTRY_FILE, else
  // the default of the chain this database was indexed from (its checkpoints' chain id)
  let registryFile = env.REGISTRY_FILE;
  if (!registryFile) {
    const chains = (await client.query<{ chain_id: number }>("SELECT DISTINCT chain_id FROM indexer_checkpoints")).rows.map((r) => r.chain_id);
    if (chains.length !== 1)
      throw new Error(
        `set REGISTRY_FILE: the database holds ${chains.length ? `checkpoints of chains ${chains.join(", ")}` : "no checkpoint"}, so no chain picks the default registry`,
      );
    registryFile = registryFileForChain(chains[0]!, undefined);
  }
  const { registry, source } = await loadRegistryFile(registryFile);
  await loadRegistryIntoDb(pool, registry, source);
  for (const v of values.diff ? positionals : [values.version!]) assertRegistryFits(v, await countTokens(client));
  const context = await loadMatchContext(client, explorerBase(env));
  if (values.diff) {
    if (positionals.length !== 2) throw new Error("usage: rematch --diff <from-version> <to-version>");
    console.log(JSON.stringify(await diffMethodologies(client, { from: positionals[0]!, to: positionals[1]!, context, ...range }), null, 2));
  } else {
    const result = await rematch(client, {
      version: values.version!,
      maintainRollups: values.version === env.METHODOLOGY_VERSION,
      rebuildAllRollups: values["rebuild-rollups"],
      context,
      ...range,
    });
    console.log(JSON.stringify(result));
  }
} catch (error) {
  console.error(`rematch failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  client.release();
  await Promise.allSettled([pool.end()]);
}
