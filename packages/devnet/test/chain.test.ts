import { stringToHex } from "viem";
import { Account } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevnetClient, devnetChain } from "../src/chain.ts";
import { DEV_PRIVATE_KEYS, PATH_USD } from "../src/constants.ts";
import { startAnvil, type AnvilInstance } from "../src/startAnvil.ts";

let anvil: AnvilInstance;
beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
});
afterAll(async () => {
  await anvil?.stop();
});

describe("devnet chain + client", () => {
  it("matches anvil (chain id 31337, hardfork t4, pathUSD fee token)", async () => {
    const client = createDevnetClient({ url: anvil.url });
    expect(await client.getChainId()).toBe(devnetChain.id);
    expect(devnetChain.hardfork).toBe("t4");
    expect(devnetChain.feeToken).toBe(PATH_USD);
  });

  it("viem/tempo high-level actions work through the anvilCompat transport (nonceKey 0)", async () => {
    const client = createDevnetClient({ url: anvil.url, account: Account.fromSecp256k1(DEV_PRIVATE_KEYS[2]) });
    const to = "0x000000000000000000000000000000000000bEEF";
    const { receipt } = await client.token.transferSync({ token: PATH_USD, to, amount: 1_230_000n, memo: stringToHex("inv-1", { size: 32 }), nonceKey: 0n });
    expect(receipt.status).toBe("success");
    const balance = await client.token.getBalance({ token: PATH_USD, account: to });
    expect(balance.amount).toBe(1_230_000n);
  });
});
