import type { Address, Hex } from 'viem'
import { demoKeys, type DemoKeys } from './demoKeys.ts'

export type RegistryEntity = { id: string; label: string; category: string; active: boolean; track_fees: boolean; wallets: Address[] }
export type DemoRegistry = {
  registry_version: 1
  network: 'devnet'
  entities: RegistryEntity[]
  address_labels: { address: Address; label: string; category: string }[]
  fingerprint_labels: { fingerprint: Hex; label: string; category: string }[]
  settlement_contracts: { address: Address; label: string }[]
}

/** The content of registry/demo.json, derived from the deterministic demo keys (all addresses lowercase). */
export function buildDemoRegistry(keys: DemoKeys = demoKeys()): DemoRegistry {
  const entity = (id: string, label: string, category: string, address: Address, trackFees = false): RegistryEntity => ({
    id,
    label,
    category,
    active: true,
    track_fees: trackFees,
    wallets: [address],
  })
  return {
    registry_version: 1,
    network: 'devnet',
    entities: [
      entity(keys.gateway.id, keys.gateway.label, 'gateway', keys.gateway.address),
      ...keys.agents.map((a) => entity(a.id, a.label, 'agent', a.address, a.trackFees)),
      ...keys.directServices.map((s) => entity(s.id, s.label, 'service', s.address)),
    ],
    address_labels: [
      ...keys.routedServices.map((r) => ({ address: r.provider.address, label: r.provider.label, category: 'provider' })),
      ...keys.faucets.map((f) => ({ address: f.address, label: f.label, category: 'faucet' })),
    ],
    fingerprint_labels: keys.routedServices.flatMap((r) =>
      r.fingerprintLabel ? [{ fingerprint: r.fingerprint.toLowerCase() as Hex, label: r.fingerprintLabel, category: 'provider' }] : [],
    ),
    settlement_contracts: [{ address: keys.escrowAddress, label: 'Demo gateway escrow' }],
  }
}
