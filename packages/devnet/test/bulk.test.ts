import { hexToString, type Address } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { Abis } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendBulkTransfers } from "../src/bulk/sendBulkTransfers.ts";
import { createDevnetClient } from "../src/chain.ts";
import { DEV_PRIVATE_KEYS, PATH_USD } from "../src/constants.ts";
import { startAnvil, type AnvilInstance } from "../src/startAnvil.ts";

let anvil: AnvilInstance;
beforeAll(async () => {
  anvil = await startAnvil({ port: 0, blockTime: 1 });
});
afterAll(async () => {
  await anvil?.stop();
});

describe("sendBulkTransfers", () => {
  it("lands 300 pre-signed transferWithMemo txs", async () => {
    const senders = DEV_PRIVATE_KEYS.slice(0, 5);
    const recipients = DEV_PRIVATE_KEYS.slice(5).map((k) => privateKeyToAddress(k)) as Address[];
    const r = await sendBulkTransfers({ rpcUrl: anvil.url, count: 300, senders, recipients, withMemo: true, batchSize: 100, timeoutMs: 30_000 });
    expect(r.txCount).toBe(300);
    expect(r.hashes).toHaveLength(300);
    expect(r.lastBlock).toBeGreaterThanOrEqual(r.firstBlock);
    // senders' first txs pay the nonce-0 surcharge; recipients already hold pathUSD
    expect(r.gasLimits.filter((g) => g > 60_000n)).toHaveLength(5);

    const client = createDevnetClient({ url: anvil.url });
    const logs = await client.getLogs({
      address: PATH_USD,
      event: Abis.tip20.find((x) => x.type === "event" && x.name === "TransferWithMemo")!,
      fromBlock: r.firstBlock,
      toBlock: r.lastBlock,
    });
    const memos = logs.map((l) => hexToString(l.args.memo!, { size: 32 }));
    expect(new Set(memos).size).toBe(300);
    expect(memos.every((m) => m.startsWith("bulk-"))).toBe(true);
  });

  it("sends plain transfers too", async () => {
    const r = await sendBulkTransfers({
      rpcUrl: anvil.url,
      count: 50,
      senders: DEV_PRIVATE_KEYS.slice(5),
      recipients: DEV_PRIVATE_KEYS.slice(0, 5).map((k) => privateKeyToAddress(k)),
      withMemo: false,
      timeoutMs: 30_000,
    });
    expect(r.txCount).toBe(50);
  });
});
