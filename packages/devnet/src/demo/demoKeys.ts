import { getContractAddress, keccak256, slice, toHex, type Address, type Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { ALPHA_USD, DEV_PRIVATE_KEYS, PATH_USD } from '../constants.ts'
import { DEMO_KEY_PREFIX, demoPrivateKey } from './demoPrivateKey.ts'

export type DemoIdentity = { id: string; label: string; privateKey: Hex; /** lowercase */ address: Address }
export type DemoAgent = DemoIdentity & { trackFees: boolean }
/** A service reached through the gateway: agents pay the gateway with its fingerprint in the memo (Pattern B);
 * the gateway settles to its provider through the escrow (Pattern A). */
export type DemoRoutedService = { service: string; fingerprint: Hex; fingerprintLabel?: string; provider: DemoIdentity }
export type DemoFaucet = DemoIdentity & { token: Address }

export type DemoKeys = {
  agents: DemoAgent[]
  /** Services paid directly by agents; ids end with `-mpp`. */
  directServices: DemoIdentity[]
  /** The gateway settlement wallet (receives Pattern B payments, calls the escrow). */
  gateway: DemoIdentity
  routedServices: DemoRoutedService[]
  /** Deploys the escrow with its first transaction (nonce 0). */
  deployer: DemoIdentity
  /** CREATE address of the deployer at nonce 0 (lowercase). */
  escrowAddress: Address
  /** Anvil dev accounts that fund the demo (one per token). */
  faucets: DemoFaucet[]
  /** Methodology v0.2 demo cases (issue 15): the adversary's key, a second wallet of the first agent, a retired (inactive) entity. */
  adversary: DemoIdentity
  alphaSecondWallet: DemoIdentity
  retiredAgent: DemoIdentity
}

const AGENTS = [
  { id: 'demo-agent-alpha', label: 'Demo agent Alpha', trackFees: false },
  { id: 'demo-agent-beta', label: 'Demo agent Beta', trackFees: false },
  { id: 'demo-agent-gamma', label: 'Demo agent Gamma', trackFees: true },
] as const
const DIRECT_SERVICES = [
  { id: 'weather-api-mpp', label: 'Weather API (MPP)' },
  { id: 'search-api-mpp', label: 'Search API (MPP)' },
  { id: 'llm-inference-mpp', label: 'LLM inference (MPP)' },
] as const
const ROUTED_SERVICES = [
  { service: 'image-generation', providerLabel: 'Image generation provider', fingerprintLabel: 'Image generation (via gateway)' },
  { service: 'speech-to-text', providerLabel: 'Speech-to-text provider', fingerprintLabel: 'Speech-to-text (via gateway)' },
  { service: 'web-scraping', providerLabel: 'Web scraping provider', fingerprintLabel: undefined }, // left unlabelled on purpose
] as const

const identity = (id: string, label: string, name: string = id): DemoIdentity => {
  const privateKey = demoPrivateKey(name)
  return { id, label, privateKey, address: privateKeyToAddress(privateKey).toLowerCase() as Address }
}

/** 10-byte fingerprint of a gateway-routed service: first 10 bytes of keccak256('agent-ledger-demo:fingerprint:<service>'). */
const fingerprintOf = (service: string): Hex => slice(keccak256(toHex(`${DEMO_KEY_PREFIX}fingerprint:${service}`)), 0, 10)

/** Every deterministic demo identity (keys from demoPrivateKey(name)), plus the escrow address they imply. */
export function demoKeys(): DemoKeys {
  const deployer = identity('escrow-deployer', 'Demo escrow deployer')
  const faucet = (i: 0 | 1, token: Address): DemoFaucet => {
    const privateKey = DEV_PRIVATE_KEYS[i]
    return { id: `anvil-dev-${i}`, label: 'Devnet faucet', privateKey, address: privateKeyToAddress(privateKey).toLowerCase() as Address, token }
  }
  return {
    agents: AGENTS.map((a) => ({ ...identity(a.id, a.label), trackFees: a.trackFees })),
    directServices: DIRECT_SERVICES.map((s) => identity(s.id, s.label)),
    gateway: identity('tempo-gateway-mpp', 'Tempo MPP Gateway'),
    routedServices: ROUTED_SERVICES.map((s) => ({
      service: s.service,
      fingerprint: fingerprintOf(s.service),
      ...(s.fingerprintLabel ? { fingerprintLabel: s.fingerprintLabel } : {}),
      provider: identity(`provider-${s.service}`, s.providerLabel),
    })),
    deployer,
    escrowAddress: getContractAddress({ from: deployer.address, nonce: 0n }).toLowerCase() as Address,
    faucets: [faucet(0, PATH_USD), faucet(1, ALPHA_USD)],
    adversary: identity('adversary', 'Adversary (not in the registry)'),
    alphaSecondWallet: identity('demo-agent-alpha', 'Demo agent Alpha', 'demo-agent-alpha:second-wallet'),
    retiredAgent: identity('retired-agent', 'Retired agent (inactive)'),
  }
}
