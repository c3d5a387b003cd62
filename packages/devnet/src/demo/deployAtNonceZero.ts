import type { Address, Hex } from "viem";
import type { DevnetClient } from "../chain.ts";
import type { TxSender } from "../createTxSender.ts";
import { DevnetError } from "../errors.ts";

/**
 * Deploys `bytecode` from `deployer` at its nonce 0 unless code already exists at `address` (the contract address of
 * that nonce), so a demo contract has the same address on every devnet. Fails if the deployer's nonce 0 was used for
 * something else (the address could then never be reached) or the contract lands elsewhere.
 */
export async function deployAtNonceZero(p: {
  client: DevnetClient;
  deployer: { address: Address; privateKey: Hex };
  address: Address;
  bytecode: Hex;
  gas: bigint;
  /** Names the contract in errors and in the `<name>_deployed` log event. */
  name: string;
  sender: (privateKey: Hex) => TxSender;
  log?: (event: Record<string, unknown>) => void;
  timeoutMs?: number;
}): Promise<{ address: Address; deployed: boolean }> {
  const { client, deployer, address, name, log } = p;
  if (await client.getCode({ address })) return { address, deployed: false };
  const nonce = await client.getTransactionCount({ address: deployer.address, blockTag: "pending" });
  if (nonce !== 0) throw new DevnetError(`${name.replace(/_/g, " ")} deployer ${deployer.address} already used nonce ${nonce - 1} but ${address} has no code`);
  const receipt = await p.sender(deployer.privateKey).sendAndWait([{ data: p.bytecode }], { gas: p.gas, ...(p.timeoutMs ? { timeoutMs: p.timeoutMs } : {}) });
  if (receipt.contractAddress?.toLowerCase() !== address)
    throw new DevnetError(`${name.replace(/_/g, " ")} deployed at ${receipt.contractAddress}, expected ${address}`);
  log?.({ event: `${name}_deployed`, address, tx: receipt.transactionHash, gasUsed: receipt.gasUsed });
  return { address, deployed: true };
}
