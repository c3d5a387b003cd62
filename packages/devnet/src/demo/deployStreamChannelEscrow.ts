import type { Address } from "viem";
import type { DevnetClient } from "../chain.ts";
import { bytecode } from "../contracts/StreamChannelEscrow.artifact.ts";
import type { TxSender } from "../createTxSender.ts";
import { deployAtNonceZero } from "./deployAtNonceZero.ts";
import type { DemoKeys } from "./demoKeys.ts";

/**
 * Gas for the session escrow deployment: it used 17,135,348 on T4 (anvil 1.7.1; T4 prices contract code and state
 * creation far above Ethereum's), under the 30 M block gas limit.
 */
export const SESSION_ESCROW_DEPLOY_GAS = 25_000_000n;

/**
 * Deploys StreamChannelEscrow (the MPP legacy session escrow's interface) from the demo session escrow deployer at
 * nonce 0 unless code already exists at `keys.sessionEscrowAddress`, so its address is the same on every devnet.
 * Fails if the deployer's nonce 0 was used for something else (the address could then never be reached).
 */
export async function deployStreamChannelEscrow(p: {
  client: DevnetClient;
  keys: DemoKeys;
  sender: (privateKey: `0x${string}`) => TxSender;
  log?: (event: Record<string, unknown>) => void;
}): Promise<{ address: Address; deployed: boolean }> {
  const { client, keys, sender, log } = p;
  return deployAtNonceZero({
    client,
    deployer: keys.sessionEscrowDeployer,
    address: keys.sessionEscrowAddress,
    bytecode,
    gas: SESSION_ESCROW_DEPLOY_GAS,
    name: "session_escrow",
    sender,
    log,
    timeoutMs: 60_000,
  });
}
