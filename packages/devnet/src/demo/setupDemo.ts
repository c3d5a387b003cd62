import { encodeFunctionData, maxUint256, type Address } from "viem";
import { Abis } from "viem/tempo";
import type { DevnetClient } from "../chain.ts";
import { PATH_USD } from "../constants.ts";
import type { TxSender } from "../createTxSender.ts";
import { deployGatewayEscrow } from "./deployGatewayEscrow.ts";
import type { DemoKeys } from "./demoKeys.ts";
import { fundDemoAccounts } from "./fundDemoAccounts.ts";

export const APPROVE_GAS = 600_000n;

export type SetupDemoResult = { escrowAddress: Address; deployed: boolean; funded: { token: Address; to: Address }[]; approved: boolean };

/**
 * Idempotent demo setup: fund agents + gateway (+ deployer) from the dev faucets, deploy the escrow at its
 * deterministic address, and let the gateway approve the escrow for pathUSD. A second run sends nothing.
 */
export async function setupDemo(p: {
  client: DevnetClient;
  keys: DemoKeys;
  sender: (privateKey: `0x${string}`) => TxSender;
  log?: (event: Record<string, unknown>) => void;
  /** More accounts to give the fee token in the same funding pass (setupMppDemo's session payees and deployer). */
  alsoFund?: readonly Address[];
}): Promise<SetupDemoResult> {
  const { client, keys, sender, log } = p;
  const hasEscrow = !!(await client.getCode({ address: keys.escrowAddress }));
  const funded = await fundDemoAccounts({ client, keys, sender, log, includeDeployer: !hasEscrow, ...(p.alsoFund ? { alsoFund: p.alsoFund } : {}) });

  const approve = async (): Promise<boolean> => {
    const allowance = await client.readContract({
      address: PATH_USD,
      abi: Abis.tip20,
      functionName: "allowance",
      args: [keys.gateway.address, keys.escrowAddress],
    });
    if (allowance >= 1n << 128n) return false;
    const data = encodeFunctionData({ abi: Abis.tip20, functionName: "approve", args: [keys.escrowAddress, maxUint256] });
    const receipt = await sender(keys.gateway.privateKey).sendAndWait([{ to: PATH_USD, data }], { gas: APPROVE_GAS });
    log?.({ event: "escrow_approved", gateway: keys.gateway.address, escrow: keys.escrowAddress, tx: receipt.transactionHash, gasUsed: receipt.gasUsed });
    return true;
  };
  const [deploy, approved] = await Promise.all([deployGatewayEscrow({ client, keys, sender, log }), approve()]);
  return { escrowAddress: deploy.address, deployed: deploy.deployed, funded, approved };
}
