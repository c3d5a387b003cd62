import { encodeFunctionData, type Address } from "viem";
import { Abis } from "viem/tempo";
import type { DevnetClient } from "../chain.ts";
import type { TxSender } from "../createTxSender.ts";
import type { DemoKeys } from "./demoKeys.ts";

/** Gas for a transfer in the worst case on T4: 35,770 + 250k (fresh recipient) + 250k (sender's first tx). */
export const FUND_GAS = 600_000n;

export type FundDemoAccountsParams = {
  client: DevnetClient;
  keys: DemoKeys;
  /** Memoized sender per private key (shares nonce state with the traffic loop). */
  sender: (privateKey: `0x${string}`) => TxSender;
  /** Also fund the escrow deployer (only needed before the deploy). */
  includeDeployer?: boolean;
  /** More accounts that need the fee token (pathUSD) only, e.g. session payees that sign settle/close. */
  alsoFund?: readonly Address[];
  /** Top up when a balance is below this (default 1,000 tokens). */
  minBalance?: bigint;
  /** Amount sent per top-up (default 100,000 tokens). */
  amount?: bigint;
  log?: (event: Record<string, unknown>) => void;
};

/**
 * Idempotent funding: every faucet (anvil dev account, one per token) sends `amount` of its token to each demo
 * account whose balance is below `minBalance`. Agents get every faucet token; gateway, deployer and `alsoFund` only
 * the first (pathUSD, the fee token). Returns the funded `{ token, to }` pairs.
 */
export async function fundDemoAccounts(p: FundDemoAccountsParams): Promise<{ token: Address; to: Address }[]> {
  const { client, keys, sender, minBalance = 1_000_000_000n, amount = 100_000_000_000n, log } = p;
  const feeFaucet = keys.faucets[0]!;
  const plan = keys.faucets.flatMap((faucet) => {
    const targets: Address[] = keys.agents.map((a) => a.address);
    if (faucet === feeFaucet) {
      targets.push(keys.gateway.address);
      if (p.includeDeployer) targets.push(keys.deployer.address);
      targets.push(...(p.alsoFund ?? []));
    }
    return targets.map((to) => ({ faucet, to }));
  });
  const balances = await Promise.all(
    plan.map(({ faucet, to }) => client.readContract({ address: faucet.token, abi: Abis.tip20, functionName: "balanceOf", args: [to] })),
  );
  const needed = plan.filter((_, i) => balances[i]! < minBalance);
  // pipelined: each faucet sends its transfers back to back (local nonces), then all receipts are awaited
  await Promise.all(
    needed.map(async ({ faucet, to }) => {
      const data = encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [to, amount] });
      const receipt = await sender(faucet.privateKey).sendAndWait([{ to: faucet.token, data }], { gas: FUND_GAS });
      log?.({ event: "funded", token: faucet.token, from: faucet.address, to, amount, tx: receipt.transactionHash, gasUsed: receipt.gasUsed });
    }),
  );
  return needed.map(({ faucet, to }) => ({ token: faucet.token, to }));
}
