import type { Address, Hex } from 'viem'
import { TOKENS } from '../constants.ts'
import { demoKeys, type DemoKeys } from './demoKeys.ts'

export type RegistryEntity = { id: string; label: string; category: string; active: boolean; track_fees: boolean; wallets: Address[] }
export type DemoRegistry = {
  registry_version: 2
  network: 'devnet'
  /** Our own explorer (served by the API), so demo rows do not link to dead mainnet pages (methodology v0.2 rule 9). */
  explorer_base_url: string
  /** The token allowlist (methodology v0.2 rule 1): the devnet's four TIP-20 stablecoins. */
  tokens: { address: Address; symbol: string; decimals: number; currency: string }[]
  entities: RegistryEntity[]
  address_labels: { address: Address; label: string; category: string }[]
  fingerprint_labels: { fingerprint: Hex; label: string; category: string; provider_address: Address }[]
  settlement_contracts: { address: Address; label: string }[]
}

/** Where the demo's rows link (`${base}/tx/<hash>`): our own explorer, served by the API on its default port. */
export const DEMO_EXPLORER_BASE_URL = 'http://localhost:3000'

/** The content of registry/demo.json, derived from the deterministic demo keys (all addresses lowercase). */
export function buildDemoRegistry(keys: DemoKeys = demoKeys()): DemoRegistry {
  const entity = (id: string, label: string, category: string, address: Address, trackFees = false, active = true): RegistryEntity => ({
    id,
    label,
    category,
    active,
    track_fees: trackFees,
    // the first agent has a second wallet: a move between the two is internal (no row)
    wallets: id === keys.alphaSecondWallet.id ? [address, keys.alphaSecondWallet.address] : [address],
  })
  return {
    registry_version: 2,
    network: 'devnet',
    explorer_base_url: DEMO_EXPLORER_BASE_URL,
    tokens: Object.entries(TOKENS).map(([symbol, address]) => ({ address, symbol, decimals: 6, currency: 'USD' })),
    entities: [
      entity(keys.gateway.id, keys.gateway.label, 'gateway', keys.gateway.address),
      ...keys.agents.map((a) => entity(a.id, a.label, 'agent', a.address, a.trackFees)),
      ...keys.directServices.map((s) => entity(s.id, s.label, 'service', s.address)),
      // inactive: not watched, its payments are seen only from the active side
      entity(keys.retiredAgent.id, keys.retiredAgent.label, 'agent', keys.retiredAgent.address, false, false),
    ],
    address_labels: [
      ...keys.routedServices.map((r) => ({ address: r.provider.address, label: r.provider.label, category: 'provider' })),
      ...keys.faucets.map((f) => ({ address: f.address, label: f.label, category: 'faucet' })),
    ],
    fingerprint_labels: keys.routedServices.flatMap((r) =>
      // each labelled fingerprint is linked to its provider's address: one provider, two keys (methodology v0.2 rule 3)
      r.fingerprintLabel
        ? [{ fingerprint: r.fingerprint.toLowerCase() as Hex, label: r.fingerprintLabel, category: 'provider', provider_address: r.provider.address }]
        : [],
    ),
    settlement_contracts: [{ address: keys.escrowAddress, label: 'Demo gateway escrow' }],
  }
}
