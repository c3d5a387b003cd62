import type { Address } from 'viem'
import type { DevnetClient } from '../chain.ts'
import { bytecode } from '../contracts/GatewayEscrow.artifact.ts'
import type { TxSender } from '../createTxSender.ts'
import { DevnetError } from '../errors.ts'
import type { DemoKeys } from './demoKeys.ts'

/** Escrow deployment used 1,971,673 gas on T4 (incl. 250k for the deployer's first tx). */
export const DEPLOY_GAS = 3_000_000n

/**
 * Deploys GatewayEscrow from the demo deployer at nonce 0 unless code already exists at `keys.escrowAddress`.
 * Fails if the deployer's nonce 0 was used for something else (the address could then never be reached).
 */
export async function deployGatewayEscrow(p: {
  client: DevnetClient
  keys: DemoKeys
  sender: (privateKey: `0x${string}`) => TxSender
  log?: (event: Record<string, unknown>) => void
}): Promise<{ address: Address; deployed: boolean }> {
  const { client, keys, sender, log } = p
  const address = keys.escrowAddress
  if (await client.getCode({ address })) return { address, deployed: false }
  const nonce = await client.getTransactionCount({ address: keys.deployer.address, blockTag: 'pending' })
  if (nonce !== 0) throw new DevnetError(`escrow deployer ${keys.deployer.address} already used nonce ${nonce - 1} but ${address} has no code`)
  const receipt = await sender(keys.deployer.privateKey).sendAndWait([{ data: bytecode }], { gas: DEPLOY_GAS })
  if (receipt.contractAddress?.toLowerCase() !== address)
    throw new DevnetError(`escrow deployed at ${receipt.contractAddress}, expected ${address}`)
  log?.({ event: 'escrow_deployed', address, tx: receipt.transactionHash, gasUsed: receipt.gasUsed })
  return { address, deployed: true }
}
