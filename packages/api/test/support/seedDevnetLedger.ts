import { parseRegistry } from "@agent-ledger/core";
import { createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import {
  ALPHA_USD,
  DEV_PRIVATE_KEYS,
  PATH_USD,
  buildDemoRegistry,
  createDevnetClient,
  createSenderPool,
  demoKeys,
  encodeGatewayMemo,
  rpcRequest,
  setupDemo,
  startAnvil,
  type AnvilInstance,
  type DemoKeys,
} from "@agent-ledger/devnet";
import { createIndexer, createRpcClient } from "@agent-ledger/indexer";
import { pino } from "pino";

// A real ledger for API tests: a devnet whose clock starts 40 days before `now`, the demo registry (plus an idle
// agent, an inactive service and a wildcard-laden address label), real payments at chosen times (direct with and
// without memo, gateway memo payments, escrow settlements, agent→agent, a uint256 above 2^53, a burst of 55), all
// indexed by the real indexer (rows + rollups in one transaction).

export const EXPLORER = "https://explore.test";
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const GAS = 600_000n;

const hex32 = (value: bigint | string) => (typeof value === "bigint" ? value.toString(16) : value.replace(/^0x/, "").toLowerCase()).padStart(64, "0");
/** ABI call data for the few functions the scenario calls (selectors of the signatures in comments). */
const calls = {
  // transfer(address,uint256)
  transfer: (to: string, amount: bigint) => `0xa9059cbb${hex32(to)}${hex32(amount)}` as `0x${string}`,
  // transferWithMemo(address,uint256,bytes32)
  transferWithMemo: (to: string, amount: bigint, memo: string) => `0x95777d59${hex32(to)}${hex32(amount)}${hex32(memo)}` as `0x${string}`,
  // settle(address,bytes32,address,uint256,uint256)
  settle: (token: string, sessionRef: string, provider: string, amountIn: bigint, amountOut: bigint) =>
    `0xe6fcb2e6${hex32(token)}${hex32(sessionRef)}${hex32(provider)}${hex32(amountIn)}${hex32(amountOut)}` as `0x${string}`,
};
const textMemo = (text: string) => `0x${Buffer.from(text, "utf8").toString("hex").padEnd(64, "0")}`;

export const IDLE_AGENT = { id: "idle-agent", label: "Idle agent", wallet: "0x00000000000000000000000000000000000001d1" };
export const RETIRED_SERVICE = { id: "retired-mpp", label: "Retired service", wallet: "0x00000000000000000000000000000000000002e7" };
export const WILDCARD_LABEL = { address: "0x00000000000000000000000000000000000ac3e0", label: "Acme 100%_Labs", category: "vendor" };
export const BIG_AMOUNT = 2n ** 60n + 1n;

export interface SeededLedger {
  anvil: AnvilInstance;
  keys: DemoKeys;
  now: Date;
  registry: ReturnType<typeof buildDemoRegistry>;
  stop(): Promise<void>;
}

export async function seedDevnetLedger(databaseUrl: string, options: { now?: Date } = {}): Promise<SeededLedger> {
  const now = options.now ?? new Date(Math.floor(Date.now() / 1000) * 1000);
  const genesis = now.getTime() - 40 * DAY;
  const anvil = await startAnvil({ args: ["--timestamp", String(Math.floor(genesis / 1000))] });
  try {
    const keys = demoKeys();
    const client = createDevnetClient({ url: anvil.url });
    const sender = createSenderPool(client);
    await setupDemo({ client, keys, sender });

    const registry = buildDemoRegistry(keys);
    registry.entities.push(
      { id: IDLE_AGENT.id, label: IDLE_AGENT.label, category: "agent", active: true, track_fees: false, wallets: [IDLE_AGENT.wallet as `0x${string}`] },
      {
        id: RETIRED_SERVICE.id,
        label: RETIRED_SERVICE.label,
        category: "service",
        active: false,
        track_fees: false,
        wallets: [RETIRED_SERVICE.wallet as `0x${string}`],
      },
    );
    registry.address_labels.push({ address: WILDCARD_LABEL.address as `0x${string}`, label: WILDCARD_LABEL.label, category: WILDCARD_LABEL.category });
    const registryDb = createPgPool(databaseUrl, { max: 1 });
    try {
      await loadRegistryIntoDb(registryDb, parseRegistry(registry), "registry:api-test.json");
    } finally {
      await registryDb.end();
    }

    const [alpha, beta, gamma] = keys.agents as [DemoKeys["agents"][0], DemoKeys["agents"][0], DemoKeys["agents"][0]];
    const [weather, searchApi, llm] = keys.directServices as [DemoKeys["directServices"][0], DemoKeys["directServices"][0], DemoKeys["directServices"][0]];
    const [imageGen, speech, scraping] = keys.routedServices as [DemoKeys["routedServices"][0], DemoKeys["routedServices"][0], DemoKeys["routedServices"][0]];
    const faucetKey = DEV_PRIVATE_KEYS[0];
    let nonce = 0n;
    let lastTs = 0;
    const at = async (offsetMs: number, fromKey: `0x${string}`, to: `0x${string}`, data: `0x${string}`) => {
      const ts = Math.max(Math.floor((now.getTime() + offsetMs) / 1000), lastTs + 1);
      lastTs = ts;
      const [set] = await rpcRequest(anvil.url, [{ method: "evm_setNextBlockTimestamp", params: [ts] }]);
      if (set?.error) throw new Error(`evm_setNextBlockTimestamp: ${set.error.message}`);
      await sender(fromKey).sendAndWait([{ to, data }], { gas: GAS });
    };
    const pay = (offsetMs: number, from: { privateKey: `0x${string}` }, to: string, amount: bigint, memo?: string, token: `0x${string}` = PATH_USD) =>
      at(offsetMs, from.privateKey, token, memo ? calls.transferWithMemo(to, amount, memo) : calls.transfer(to, amount));
    const viaGateway = (offsetMs: number, from: { privateKey: `0x${string}` }, routed: DemoKeys["routedServices"][0], amount: bigint) =>
      pay(offsetMs, from, keys.gateway.address, amount, encodeGatewayMemo(routed.fingerprint, ++nonce));
    const settle = (offsetMs: number, routed: DemoKeys["routedServices"][0], amountIn: bigint) =>
      at(
        offsetMs,
        keys.gateway.privateKey,
        keys.escrowAddress,
        calls.settle(PATH_USD, hex32(++nonce), routed.provider.address, amountIn, (amountIn * 95n) / 100n),
      );

    await pay(-35 * DAY, alpha, weather.address, 1_000_000n, textMemo("inv-1"));
    await viaGateway(-35 * DAY + MIN, beta, imageGen, 500_000n);
    await pay(-29 * DAY - 2 * HOUR, gamma, searchApi.address, 2_000_000n, undefined, ALPHA_USD);
    await settle(-20 * DAY, imageGen, 1_000_000n);
    await pay(-15 * DAY, { privateKey: faucetKey }, alpha.address, BIG_AMOUNT);
    await pay(-10 * DAY, alpha, beta.address, 300_000n, textMemo("a2a-1"));
    await pay(-7 * DAY - 30 * MIN, beta, llm.address, 4_000_000n);
    await viaGateway(-6 * DAY - 20 * HOUR, gamma, speech, 700_000n);
    await settle(-3 * DAY, speech, 800_000n);
    await pay(-30 * HOUR, alpha, searchApi.address, 250_000n, textMemo("inv-2"));
    await pay(-23 * HOUR - 30 * MIN, gamma, weather.address, 1_500_000n);
    for (let i = 0; i < 55; i++) await pay(-12 * HOUR + i * 1000, alpha, weather.address, 10_000n + BigInt(i));
    await viaGateway(-5 * HOUR, beta, scraping, 900_000n);
    await settle(-2 * HOUR, scraping, 900_000n);
    await pay(-90 * MIN, alpha, gamma.address, 100_000n);
    await pay(-30 * MIN, gamma, llm.address, 3_330_000n, textMemo("inv-3"));
    await pay(-10 * MIN, alpha, weather.address, 10_000n);
    await pay(-5 * MIN, beta, searchApi.address, 420_000n, textMemo("inv-4"));

    // cacheTime 0: viem caches the block number for a polling interval, and blocks here come every few ms.
    await indexAll(databaseUrl, anvil.url, await client.getBlockNumber({ cacheTime: 0 }));
    return { anvil, keys, now, registry, stop: () => anvil.stop() };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** Runs the real indexer in-process until its checkpoint reaches `toBlock`. */
export async function indexAll(databaseUrl: string, rpcUrl: string, toBlock: bigint): Promise<void> {
  const registryDb = createPgPool(databaseUrl, { max: 1 });
  const pool = createPgPool(databaseUrl, { max: 1 });
  const client = await pool.connect();
  try {
    const indexer = createIndexer(
      { rpc: createRpcClient(rpcUrl), client, loadContext: () => loadMatchContext(registryDb, EXPLORER), log: pino({ level: "silent" }) },
      {
        startBlock: 0n,
        confirmations: 0,
        chunk: { initial: 1_000, min: 1, max: 10_000, targetMs: 2_000, maxLogs: 50_000 },
        pollIntervalMs: 50,
        stopAtBlock: toBlock,
      },
    );
    await indexer.run(AbortSignal.timeout(60_000));
  } finally {
    client.release();
    await pool.end();
    await registryDb.end();
  }
}
