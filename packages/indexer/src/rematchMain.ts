// `npm run rematch -- [--version v0.1] [--from-block N] [--to-block N]`
import { parseArgs } from "node:util";
import { CURRENT_METHODOLOGY_VERSION } from "@agent-ledger/core";
import { createPgPool, createPrisma, loadMatchContext } from "@agent-ledger/db";
import { parseIndexerEnv } from "./env.ts";
import { rematch } from "./rematch.ts";

const { values } = parseArgs({
  options: { version: { type: "string", default: CURRENT_METHODOLOGY_VERSION }, "from-block": { type: "string" }, "to-block": { type: "string" } },
});
const env = parseIndexerEnv();
const prisma = createPrisma(env.DATABASE_URL);
const pool = createPgPool(env.DATABASE_URL, { max: 1, applicationName: "agent-ledger-rematch" });
const client = await pool.connect();
try {
  const result = await rematch(client, {
    version: values.version!,
    maintainRollups: values.version === env.METHODOLOGY_VERSION,
    context: await loadMatchContext(prisma, env.EXPLORER_BASE_URL),
    fromBlock: values["from-block"] ? BigInt(values["from-block"]) : undefined,
    toBlock: values["to-block"] ? BigInt(values["to-block"]) : undefined,
  });
  console.log(JSON.stringify(result));
} catch (error) {
  console.error(`rematch failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  client.release();
  await Promise.allSettled([pool.end(), prisma.$disconnect()]);
}
