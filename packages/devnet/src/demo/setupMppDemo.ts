import type { Address } from "viem";
import type { DevnetClient } from "../chain.ts";
import type { TxSender } from "../createTxSender.ts";
import type { DemoKeys } from "./demoKeys.ts";
import { deployStreamChannelEscrow } from "./deployStreamChannelEscrow.ts";
import { setupDemo, type SetupDemoResult } from "./setupDemo.ts";

export type SetupMppDemoResult = SetupDemoResult & { sessionEscrowAddress: Address; sessionEscrowDeployed: boolean };

/** The session payees: they sign settle and close, so they need the fee token before their first payout. */
export const sessionPayees = (keys: DemoKeys): Address[] => [keys.directServices[2]!.address, keys.rpcNode.address];

/**
 * Idempotent setup of the MPP demo: everything setupDemo does (fund agents and gateway, gateway escrow for the
 * gateway's provider payouts), plus the fee token for the session payees and the session escrow deployer, then the
 * session escrow (StreamChannelEscrow) at its deterministic address. A second run sends nothing.
 */
export async function setupMppDemo(p: {
  client: DevnetClient;
  keys: DemoKeys;
  sender: (privateKey: `0x${string}`) => TxSender;
  log?: (event: Record<string, unknown>) => void;
}): Promise<SetupMppDemoResult> {
  const { client, keys } = p;
  const hasSessionEscrow = !!(await client.getCode({ address: keys.sessionEscrowAddress }));
  const alsoFund = [...sessionPayees(keys), ...(hasSessionEscrow ? [] : [keys.sessionEscrowDeployer.address])];
  const setup = await setupDemo({ ...p, alsoFund });
  const session = await deployStreamChannelEscrow(p);
  return { ...setup, sessionEscrowAddress: session.address, sessionEscrowDeployed: session.deployed };
}
