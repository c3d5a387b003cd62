// Devnet + demo traffic: `tsx packages/devnet/src/main.ts`
// Env: DEVNET_PORT (8545), DEVNET_BLOCK_TIME (seconds, 1; 0 = automine), DEMO_TX_PER_SECOND (2; 0 = set up only),
//      DEVNET_ANVIL_LOG=1 to also print anvil's own output as JSON lines.
import { createDevnetClient } from "./chain.ts";
import { createSenderPool } from "./createSenderPool.ts";
import { demoKeys } from "./demo/demoKeys.ts";
import { setupMppDemo } from "./demo/setupMppDemo.ts";
import { startDemoTraffic } from "./demo/startDemoTraffic.ts";
import { startAnvil, type AnvilInstance } from "./startAnvil.ts";

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
  return n;
};

const line = (event: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...event }, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}\n`);

let anvil: AnvilInstance | undefined;
let traffic: { stop(): Promise<void> } | undefined;
let shuttingDown = false;

async function shutdown(reason: string, code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  line({ event: "shutdown", reason });
  const force = setTimeout(() => process.exit(code || 1), 30_000);
  try {
    await traffic?.stop();
    await anvil?.stop();
  } finally {
    clearTimeout(force);
    line({ event: "devnet_stopped" });
    process.exit(code);
  }
}
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void shutdown(sig, 0));

try {
  const port = num("DEVNET_PORT", 8545);
  const blockTime = num("DEVNET_BLOCK_TIME", 1);
  const txPerSecond = num("DEMO_TX_PER_SECOND", 2);
  const anvilLog = process.env.DEVNET_ANVIL_LOG === "1" ? (l: string) => line({ event: "anvil", line: l }) : undefined;
  anvil = await startAnvil({ port, ...(blockTime > 0 ? { blockTime } : {}), ...(anvilLog ? { log: anvilLog } : {}) });
  line({ event: "devnet_started", url: anvil.url, port: anvil.port, pid: anvil.pid, chainId: 31337, hardfork: "T4", blockTime });
  if (shuttingDown) await anvil.stop();
  else if (txPerSecond > 0) {
    // npm start gives the devnet 8 s to exit: in-flight steps and closing the open sessions get 6 of them
    traffic = await startDemoTraffic({ rpcUrl: anvil.url, txPerSecond, log: line, adversarial: process.env.DEMO_ADVERSARIAL !== "0", stopTimeoutMs: 6_000 });
  } else {
    const client = createDevnetClient({ url: anvil.url });
    line({ event: "demo_setup", ...(await setupMppDemo({ client, keys: demoKeys(), sender: createSenderPool(client), log: line })) });
  }
  if (!shuttingDown) line({ event: "ready", rpcUrl: anvil.url, txPerSecond });
} catch (e) {
  line({ event: "fatal", error: (e as Error).message });
  await shutdown("fatal", 1);
}
