import { parseRegistry, verifyWebhook } from "@agent-ledger/core";
import { createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { DEV_PRIVATE_KEYS, PATH_USD, createDevnetClient, startAnvil, type AnvilInstance } from "@agent-ledger/devnet";
import { createIndexer, createRpcClient } from "@agent-ledger/indexer";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../packages/worker/src/startWorker.ts";
import {
  createOwner,
  createSubscription,
  deletePrefixKeys,
  deliveryRows,
  setupDb,
  silentLog,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type Receiver,
  type TestDb,
} from "../packages/worker/test/helpers.ts";

// The whole path with nothing simulated: payments on a real devnet → the real indexer (eth_getLogs,
// matcher, writeBatch + NOTIFY) → the dispatcher → BullMQ → a signed POST to a loopback receiver.

const lower = (a: string) => a.toLowerCase();
const agentKey = DEV_PRIVATE_KEYS[1];
const AGENT = lower(privateKeyToAccount(agentKey).address);
const SHOP = lower(privateKeyToAccount(DEV_PRIVATE_KEYS[4]).address);
const OTHER = lower(privateKeyToAccount(DEV_PRIVATE_KEYS[6]).address);

describe("end to end from a devnet through the real indexer", () => {
  let anvil: AnvilInstance;
  let db: TestDb;
  let receiver: Receiver;
  let worker: RunningWorker;
  const prefix = uniquePrefix("e2e");
  const stopIndexer = new AbortController();
  let indexerDone: Promise<void> | null = null;

  beforeAll(async () => {
    [anvil, db] = await Promise.all([startAnvil(), setupDb()]);
    const registryPool = createPgPool(db.url, { max: 1 }); // registry load and match contexts, beside the indexer's connection
    registryPool.on("error", () => {});
    await loadRegistryIntoDb(
      registryPool,
      parseRegistry({
        registry_version: 1,
        network: "devnet",
        entities: [
          { id: "e2e-agent", label: "E2E agent", category: "agent", wallets: [AGENT] },
          { id: "e2e-shop-mpp", label: "E2E shop", category: "commerce", wallets: [SHOP] },
        ],
      }),
      "registry:e2e.json",
    );
    receiver = await startReceiver();
    worker = await startTestWorker(db, { prefix, dispatch: { pollMs: 500 } });
    await worker.dispatcher!.idle();
    const pool = createPgPool(db.url, { max: 1 });
    pool.on("error", () => {});
    const client = await pool.connect();
    const indexer = createIndexer(
      { rpc: createRpcClient(anvil.url), client, loadContext: () => loadMatchContext(registryPool, "https://explore.test"), log: silentLog },
      { startBlock: 0n, confirmations: 0, chunk: { initial: 100, min: 1, max: 10_000, targetMs: 2_000, maxLogs: 50_000 }, pollIntervalMs: 100 },
    );
    indexerDone = indexer
      .run(stopIndexer.signal)
      .catch(() => {})
      .finally(async () => {
        client.release();
        await pool.end();
        await registryPool.end();
      });
  }, 120_000);

  afterAll(async () => {
    stopIndexer.abort();
    await indexerDone;
    await worker?.stop(1_000);
    await receiver?.close();
    await deletePrefixKeys(prefix);
    await Promise.allSettled([anvil?.stop(), db?.drop()]);
  });

  it("on-chain payments matching a subscription's filters arrive signed, once each, with the indexed row as data", async () => {
    const owner = await createOwner(db.pool);
    const toShop = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: "e2e-agent", recipient: SHOP, minAmountWei: 1_000n });
    const shopSide = await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: "e2e-shop-mpp" });
    receiver.secrets.set(toShop.id, toShop.secret);
    receiver.secrets.set(shopSide.id, shopSide.secret);

    const agent = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(agentKey) });
    const started = performance.now();
    for (const amount of [1_500_000n, 999n, 2_000_000n]) await agent.token.transferSync({ token: PATH_USD, to: getAddress(SHOP), amount, nonceKey: 0n });
    await agent.token.transferSync({ token: PATH_USD, to: getAddress(OTHER), amount: 5_000_000n, nonceKey: 0n }); // not to the shop

    // Agent side: amount ≥ 1000 to the shop → 2 of 4. Shop side: every payment it received → 3.
    await waitFor(() => receiver.forSubscription(toShop.id).length === 2 && receiver.forSubscription(shopSide.id).length === 3, {
      timeoutMs: 30_000,
      what: "deliveries from the devnet",
    });
    const latencyMs = performance.now() - started;
    const got = receiver.forSubscription(toShop.id);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(got.map((r) => (r.body.data as { amount_wei: string }).amount_wei).sort()).toEqual(["1500000", "2000000"]);
    for (const r of [...got, ...receiver.forSubscription(shopSide.id)]) {
      const data = r.body.data as Record<string, unknown>;
      const {
        rows: [row],
      } = await db.pool.query("SELECT agent_id, counterparty_address, kind, tx_hash, amount_wei::text AS amount_wei FROM agent_events WHERE id = $1", [
        data.id,
      ]);
      expect(data).toMatchObject(row);
      expect(r.headers["svc-event-id"]).toBe(String(data.id));
      expect(data.explorer_url).toBe(`https://explore.test/tx/${data.tx_hash}`);
      expect(data.methodology_version).toBe("v0.1");
      expect(() => verifyWebhook(r.rawBody, r.headers, receiver.secrets.get(r.headers["svc-subscription"] as string)!)).not.toThrow();
    }
    expect(receiver.forSubscription(shopSide.id).map((r) => (r.body.data as { kind: string }).kind)).toEqual([
      "payment_received",
      "payment_received",
      "payment_received",
    ]);
    expect((await deliveryRows(db.pool, toShop.id)).map((d) => d.status)).toEqual(["succeeded", "succeeded"]);
    expect(latencyMs).toBeLessThan(30_000);
  }, 60_000);
});
