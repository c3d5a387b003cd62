import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { getContractAddress, keccak256, toHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { buildDemoRegistry, type DemoRegistry } from '../src/demo/buildDemoRegistry.ts'
import { demoKeys } from '../src/demo/demoKeys.ts'

const registry = JSON.parse(readFileSync(fileURLToPath(new URL('../../../registry/demo.json', import.meta.url)), 'utf8')) as DemoRegistry
const addr = (name: string) => privateKeyToAddress(keccak256(toHex(`agent-ledger-demo:${name}`))).toLowerCase()

describe('registry/demo.json', () => {
  it('equals what demoKeys derives (regenerate with scripts/writeDemoRegistry.ts)', () => {
    expect(registry).toEqual(buildDemoRegistry(demoKeys()))
  })

  it('uses keccak256("agent-ledger-demo:<name>") keys and the deployer nonce-0 CREATE address', () => {
    const wallet = (id: string) => registry.entities.find((e) => e.id === id)?.wallets[0]
    for (const id of ['tempo-gateway-mpp', 'demo-agent-alpha', 'demo-agent-beta', 'demo-agent-gamma', 'weather-api-mpp', 'search-api-mpp', 'llm-inference-mpp'])
      expect(wallet(id)).toBe(addr(id))
    const escrow = getContractAddress({ from: addr('escrow-deployer') as `0x${string}`, nonce: 0n }).toLowerCase()
    expect(registry.settlement_contracts).toEqual([{ address: escrow, label: 'Demo gateway escrow' }])
  })

  it('has the expected shape: lowercase addresses, gamma tracks fees, faucets, 2 of 3 fingerprints labelled', () => {
    const json = JSON.stringify(registry)
    expect(json.match(/0x[0-9a-fA-F]{40}/g)!.every((a) => a === a.toLowerCase())).toBe(true)
    expect(registry.entities.filter((e) => e.track_fees).map((e) => e.id)).toEqual(['demo-agent-gamma'])
    expect(registry.entities.filter((e) => e.id.endsWith('-mpp')).map((e) => e.id)).toEqual(['tempo-gateway-mpp', 'weather-api-mpp', 'search-api-mpp', 'llm-inference-mpp'])
    expect(registry.address_labels.filter((l) => l.category === 'faucet').every((l) => l.label === 'Devnet faucet')).toBe(true)
    expect(registry.address_labels.filter((l) => l.category === 'provider')).toHaveLength(3)
    expect(registry.fingerprint_labels).toHaveLength(2)
    for (const f of registry.fingerprint_labels) expect(f.fingerprint).toMatch(/^0x[0-9a-f]{20}$/)
    const keys = demoKeys()
    expect(keys.routedServices.filter((r) => !r.fingerprintLabel)).toHaveLength(1)
  })
})
