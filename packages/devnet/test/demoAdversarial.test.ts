import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevnetClient } from "../src/chain.ts";
import { demoKeys } from "../src/demo/demoKeys.ts";
import { startDemoTraffic, type DemoEvent } from "../src/demo/startDemoTraffic.ts";
import { startAnvil, type AnvilInstance } from "../src/startAnvil.ts";

// The running demo (`adversarial: true`, as `npm start` runs it) sends every methodology-v0.2 adversarial case once,
// from the demo's own keys (adversary, alpha's second wallet, the retired agent), beside the normal traffic.
let anvil: AnvilInstance;
const events: DemoEvent[] = [];

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  const traffic = await startDemoTraffic({ rpcUrl: anvil.url, txPerSecond: 2, log: (e) => events.push(e), adversarial: true });
  const deadline = Date.now() + 90_000;
  while (!events.some((e) => e.event === "adversarial_done" || e.event === "adversarial_failed") && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 250));
  await traffic.stop();
}, 120_000);
afterAll(async () => {
  await anvil?.stop();
});

describe("demo traffic with the adversarial cases", () => {
  it("sends each case once, every transaction mined", async () => {
    expect(events.find((e) => e.event === "adversarial_failed")).toBeUndefined();
    const done = events.find((e) => e.event === "adversarial_done")!;
    const cases = [
      "nonTokenTransfer",
      "junkTokenTransfer",
      "junkTokenMint",
      "forgedSoloMemo",
      "untrustedSettlement",
      "outsiderEscrowCall",
      "funding",
      "sameEntityMove",
      "inactiveEntity",
      "feeAmmLiquidity",
      "feeAmmWithdrawal",
    ];
    expect(
      Object.keys(done)
        .filter((k) => k !== "event")
        .sort(),
    ).toEqual(cases.sort());
    const client = createDevnetClient({ url: anvil.url });
    const keys = demoKeys();
    const sameEntity = await client.getTransactionReceipt({ hash: done.sameEntityMove as `0x${string}` });
    expect(sameEntity.status).toBe("success");
    expect(sameEntity.from.toLowerCase()).toBe(keys.agents[0]!.address);
    for (const name of ["feeAmmLiquidity", "feeAmmWithdrawal"]) {
      const receipt = await client.getTransactionReceipt({ hash: done[name] as `0x${string}` });
      expect(receipt.status, name).toBe("success");
    }
    expect(events.filter((e) => e.event === "adversarial_tx")).toHaveLength(cases.length);
  });
});
