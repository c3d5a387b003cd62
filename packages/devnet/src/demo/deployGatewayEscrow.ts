import type { Address } from "viem";
import type { DevnetClient } from "../chain.ts";
import { bytecode } from "../contracts/GatewayEscrow.artifact.ts";
import type { TxSender } from "../createTxSender.ts";
import { deployAtNonceZero } from "./deployAtNonceZero.ts";
import type { DemoKeys } from "./demoKeys.ts";

/** Escrow deployment used 1,971,673 gas on T4 (incl. 250k for the deployer's first tx). */
export const DEPLOY_GAS = 3_000_000n;

/**
 * Deploys GatewayEscrow from the demo deployer at nonce 0 unless code already exists at `keys.escrowAddress`.
 * Fails if the deployer's nonce 0 was used for something else (the address could then never be reached).
 */
export async function deployGatewayEscrow(p: {
  client: DevnetClient;
  keys: DemoKeys;
  sender: (privateKey: `0x${string}`) => TxSender;
  log?: (event: Record<string, unknown>) => void;
}): Promise<{ address: Address; deployed: boolean }> {
  const { client, keys, sender, log } = p;
  return deployAtNonceZero({ client, deployer: keys.deployer, address: keys.escrowAddress, bytecode, gas: DEPLOY_GAS, name: "escrow", sender, log });
}
