import { hexToString, parseEventLogs, type Hash, type Log } from 'viem'
import { Abis } from 'viem/tempo'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnetClient, type DevnetClient } from '../src/chain.ts'
import { ALPHA_USD, FEE_MANAGER, PATH_USD } from '../src/constants.ts'
import { abi as escrowAbi } from '../src/contracts/GatewayEscrow.artifact.ts'
import { createSenderPool } from '../src/createSenderPool.ts'
import { demoKeys } from '../src/demo/demoKeys.ts'
import { setupDemo } from '../src/demo/setupDemo.ts'
import { startDemoTraffic, type DemoEvent, type DemoTrafficStats } from '../src/demo/startDemoTraffic.ts'
import { GATEWAY_MEMO_MAGIC } from '../src/memo/encodeGatewayMemo.ts'
import { decodeGatewayMemo } from '../src/memo/decodeGatewayMemo.ts'
import { startAnvil, type AnvilInstance } from '../src/startAnvil.ts'

/** Seeded PRNG (mulberry32) so parties/amounts are reproducible. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const keys = demoKeys()
const lc = (a: string): string => a.toLowerCase()
let anvil: AnvilInstance
let client: DevnetClient
let stats: DemoTrafficStats
const events: DemoEvent[] = []
let transfers: ReturnType<typeof parseEventLogs<typeof Abis.tip20, true, 'Transfer'>>
let memos: ReturnType<typeof parseEventLogs<typeof Abis.tip20, true, 'TransferWithMemo'>>
let settlements: ReturnType<typeof parseEventLogs<typeof escrowAbi, true, 'Settlement'>>

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 })
  client = createDevnetClient({ url: anvil.url })
  const traffic = await startDemoTraffic({ rpcUrl: anvil.url, txPerSecond: 20, log: (e) => events.push(e), random: seeded(42) })
  await new Promise((r) => setTimeout(r, 2_100)) // ≥ 40 ticks = two full cycles of the pattern
  await traffic.stop()
  stats = traffic.stats()
  const logs = await client.getLogs({ fromBlock: 0n, toBlock: 'latest' })
  transfers = parseEventLogs({ abi: Abis.tip20, logs: logs as Log[], eventName: 'Transfer' })
  memos = parseEventLogs({ abi: Abis.tip20, logs: logs as Log[], eventName: 'TransferWithMemo' })
  settlements = parseEventLogs({ abi: escrowAbi, logs: logs as Log[], eventName: 'Settlement' })
})
afterAll(async () => {
  await anvil?.stop()
})


describe('demo traffic on a devnet', () => {
  it('sets up, then sends every kind of tx without failures', () => {
    expect(stats.setup.deployed).toBe(true)
    expect(stats.setup.approved).toBe(true)
    expect(stats.failed).toBe(0)
    expect(stats.confirmed).toBeGreaterThanOrEqual(35)
    for (const kind of ['direct', 'gateway', 'settlement', 'agentToAgent'] as const) expect(stats.byKind[kind]).toBeGreaterThan(0)
    expect(events.filter((e) => e.event === 'tx')).toHaveLength(stats.confirmed)
  })

  it('deployed the escrow at the deterministic address (deployer nonce 0)', async () => {
    const deployed = events.find((e) => e.event === 'escrow_deployed')!
    expect(deployed.address).toBe(keys.escrowAddress)
    const receipt = await client.getTransactionReceipt({ hash: deployed.tx as Hash })
    expect(lc(receipt.contractAddress!)).toBe(keys.escrowAddress)
    expect(lc(receipt.from)).toBe(keys.deployer.address)
    expect(await client.getCode({ address: keys.escrowAddress })).toMatch(/^0x[0-9a-f]{20,}/)
  })

  it('setup is idempotent on an already set-up devnet', async () => {
    const before = await client.getBlockNumber()
    const again = await setupDemo({ client, keys, sender: createSenderPool(client) })
    expect(again).toEqual({ escrowAddress: keys.escrowAddress, deployed: false, funded: [], approved: false })
    expect(await client.getBlockNumber()).toBe(before)
  })

  it('direct payments: agent → -mpp service, with text memos and plain transfers, pathUSD and AlphaUSD', () => {
    const agents = new Set<string>(keys.agents.map((a) => a.address))
    const services = new Set<string>(keys.directServices.map((s) => s.address))
    const direct = transfers.filter((l) => agents.has(lc(l.args.from)) && services.has(lc(l.args.to)))
    expect(direct.length).toBe(stats.byKind.direct)
    const withMemo = memos.filter((l) => services.has(lc(l.args.to)))
    expect(withMemo.length).toBeGreaterThan(0)
    expect(withMemo.length).toBeLessThan(direct.length) // some are plain transfers
    for (const m of withMemo) expect(hexToString(m.args.memo, { size: 32 })).toMatch(/^inv-\d{6}$/)
    expect(new Set(direct.map((l) => lc(l.address)))).toEqual(new Set([PATH_USD, ALPHA_USD]))
  })

  it('gateway payments carry the magic prefix and the routed services’ fingerprints', () => {
    const toGateway = memos.filter((l) => lc(l.args.to) === keys.gateway.address)
    expect(toGateway.length).toBe(stats.byKind.gateway)
    const fingerprints = new Set<string>(keys.routedServices.map((r) => r.fingerprint))
    const seen = new Set<string>()
    for (const l of toGateway) {
      expect(l.args.memo.startsWith(GATEWAY_MEMO_MAGIC)).toBe(true)
      const memo = decodeGatewayMemo(l.args.memo)!
      expect(fingerprints.has(memo.fingerprint)).toBe(true)
      seen.add(memo.fingerprint)
    }
    expect(seen.size).toBeGreaterThanOrEqual(2)
  })

  it('settlements: one tx holds Transfer gateway → provider and Settlement naming that provider', () => {
    const providers = new Set<string>(keys.routedServices.map((r) => r.provider.address))
    expect(settlements.length).toBe(stats.byKind.settlement)
    for (const s of settlements) {
      expect(lc(s.address)).toBe(keys.escrowAddress)
      expect(lc(s.args.gateway)).toBe(keys.gateway.address)
      expect(providers.has(lc(s.args.serviceProvider))).toBe(true)
      expect(s.args.amountOut).toBeLessThanOrEqual(s.args.amountIn)
      const transfer = transfers.find(
        (l) => l.transactionHash === s.transactionHash && lc(l.args.from) === keys.gateway.address && lc(l.args.to) === lc(s.args.serviceProvider),
      )
      expect(transfer?.args.amount).toBe(s.args.amountOut)
      expect(transfer!.logIndex).toBeLessThan(s.logIndex)
    }
  })

  it('agent → agent transfers and fee transfers to the FeeManager exist; amounts are 0.01–5 tokens', () => {
    const agents = new Set<string>(keys.agents.map((a) => a.address))
    const a2a = transfers.filter((l) => agents.has(lc(l.args.from)) && agents.has(lc(l.args.to)))
    expect(a2a.length).toBe(stats.byKind.agentToAgent)
    expect(transfers.some((l) => lc(l.args.to) === FEE_MANAGER)).toBe(true)
    for (const e of events.filter((x) => x.event === 'tx' && x.kind !== 'settlement'))
      expect(e.amount as bigint).toSatisfy((v: bigint) => v >= 10_000n && v <= 5_000_000n)
  })
})
