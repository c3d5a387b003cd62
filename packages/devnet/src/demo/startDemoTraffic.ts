import { randomBytes } from 'node:crypto'
import { encodeFunctionData, stringToHex, toHex, type Address, type Hex } from 'viem'
import { Abis } from 'viem/tempo'
import { createDevnetClient } from '../chain.ts'
import { ALPHA_USD, PATH_USD } from '../constants.ts'
import { abi as escrowAbi } from '../contracts/GatewayEscrow.artifact.ts'
import { createSenderPool } from '../createSenderPool.ts'
import { sendAdversarialTraffic } from '../adversarial/sendAdversarialTraffic.ts'
import { encodeGatewayMemo } from '../memo/encodeGatewayMemo.ts'
import { demoKeys, type DemoKeys } from './demoKeys.ts'
import { fundDemoAccounts } from './fundDemoAccounts.ts'
import { setupDemo, type SetupDemoResult } from './setupDemo.ts'

export type DemoTxKind = 'direct' | 'gateway' | 'settlement' | 'agentToAgent'
export type DemoEvent = Record<string, unknown> & { event: string }

export type DemoTrafficStats = {
  startedAt: number
  ticks: number
  sent: number
  confirmed: number
  failed: number
  skipped: number
  byKind: Record<DemoTxKind, number>
  setup: SetupDemoResult
}

export type StartDemoTrafficParams = {
  rpcUrl: string
  txPerSecond?: number
  log?: (event: DemoEvent) => void
  signal?: AbortSignal
  keys?: DemoKeys
  /** Source of randomness in [0,1) for amounts/parties (default Math.random). */
  random?: () => number
  /** Re-check balances and top up from the faucets this often (default 120 s). */
  topUpEveryMs?: number
  /** Receipt timeout per tx (default 20 s). */
  txTimeoutMs?: number
  /** stop() waits at most this long for in-flight txs (default 10 s). */
  stopTimeoutMs?: number
  /**
   * Also send, once after setup, the adversarial cases of methodology v0.2 (sendAdversarialTraffic: spoofed Transfer,
   * junk token, forged memo and Settlement, outsider escrow call, funding, same-entity move, inactive entity, fee-AMM
   * liquidity deposit and withdrawal), so the running demo shows v0.2 ignoring or classifying each (default false;
   * `npm start` turns it on).
   */
  adversarial?: boolean
}

/** One cycle of 20 ticks: 8 direct, 7 gateway, 3 settlements, 2 agent→agent; starts with one of each. */
const PATTERN: readonly DemoTxKind[] = [
  'direct', 'gateway', 'settlement', 'agentToAgent', 'direct', 'gateway', 'direct', 'gateway', 'direct', 'gateway',
  'settlement', 'direct', 'gateway', 'direct', 'gateway', 'agentToAgent', 'direct', 'gateway', 'settlement', 'direct',
]
/** Worst case on T4: 35,770 + 250k fresh recipient + 250k sender's first tx (settle: 41,654 + 250k). */
const TX_GAS = 600_000n
const MAX_IN_FLIGHT = 50

/**
 * Sets the demo up once (idempotent), then sends realistic MPP-style traffic at `txPerSecond` until stopped:
 * direct agent → `-mpp` service payments, agent → gateway payments with gateway memos (Pattern B),
 * gateway → provider settlements through the escrow (Pattern A), and a few agent → agent transfers.
 * A failed tx is logged and the loop goes on.
 */
export async function startDemoTraffic(p: StartDemoTrafficParams): Promise<{ stop(): Promise<void>; stats(): DemoTrafficStats }> {
  const { rpcUrl, txPerSecond = 2, log = () => {}, signal, keys = demoKeys(), random = Math.random } = p
  const { topUpEveryMs = 120_000, txTimeoutMs = 20_000, stopTimeoutMs = 10_000 } = p
  const client = createDevnetClient({ url: rpcUrl })
  const sender = createSenderPool(client)

  const setup = await setupDemo({ client, keys, sender, log: (e) => log({ ...e, event: String(e.event) }) })
  log({ event: 'demo_setup', ...setup })

  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  /** 0.01 … 5.00 tokens (6 decimals), in whole cents. */
  const amount = () => BigInt(1 + Math.floor(random() * 500)) * 10_000n
  /** Short human-readable invoice ids, e.g. `inv-482913`. */
  const invoiceId = (prefix: string) => `${prefix}-${100_000 + Math.floor(random() * 900_000)}`
  const transferCall = (token: Address, to: Address, value: bigint, memo?: Hex) => ({
    to: token,
    data: memo
      ? encodeFunctionData({ abi: Abis.tip20, functionName: 'transferWithMemo', args: [to, value, memo] })
      : encodeFunctionData({ abi: Abis.tip20, functionName: 'transfer', args: [to, value] }),
  })

  const build = (kind: DemoTxKind) => {
    switch (kind) {
      case 'direct': {
        const agent = pick(keys.agents)
        const service = pick(keys.directServices)
        const token = random() < 0.8 ? PATH_USD : ALPHA_USD
        const memo = random() < 0.7 ? stringToHex(invoiceId('inv'), { size: 32 }) : undefined
        const value = amount()
        return { from: agent, to: service.address, detail: { service: service.id, token, amount: value, memo }, call: transferCall(token, service.address, value, memo) }
      }
      case 'gateway': {
        const agent = pick(keys.agents)
        const routed = pick(keys.routedServices)
        const memo = encodeGatewayMemo(routed.fingerprint, BigInt(toHex(randomBytes(7))))
        const value = amount()
        const detail = { service: routed.service, fingerprint: routed.fingerprint, token: PATH_USD, amount: value, memo }
        return { from: agent, to: keys.gateway.address, detail, call: transferCall(PATH_USD, keys.gateway.address, value, memo) }
      }
      case 'settlement': {
        const routed = pick(keys.routedServices)
        const amountIn = amount()
        const amountOut = (amountIn * 95n) / 100n // the gateway keeps 5%
        const sessionRef = toHex(randomBytes(32))
        const data = encodeFunctionData({
          abi: escrowAbi,
          functionName: 'settle',
          args: [PATH_USD, sessionRef, routed.provider.address, amountIn, amountOut],
        })
        const detail = { provider: routed.provider.address, service: routed.service, sessionRef, amountIn, amountOut }
        return { from: keys.gateway, to: keys.escrowAddress, detail, call: { to: keys.escrowAddress, data } }
      }
      case 'agentToAgent': {
        const agent = pick(keys.agents)
        const other = pick(keys.agents.filter((a) => a !== agent))
        const memo = random() < 0.5 ? stringToHex(invoiceId('a2a'), { size: 32 }) : undefined
        const value = amount()
        return { from: agent, to: other.address, detail: { token: PATH_USD, amount: value, memo }, call: transferCall(PATH_USD, other.address, value, memo) }
      }
    }
  }

  const stats: DemoTrafficStats = {
    startedAt: Date.now(),
    ticks: 0,
    sent: 0,
    confirmed: 0,
    failed: 0,
    skipped: 0,
    byKind: { direct: 0, gateway: 0, settlement: 0, agentToAgent: 0 },
    setup,
  }
  const inFlight = new Set<Promise<void>>()
  const track = (work: Promise<void>) => {
    inFlight.add(work)
    void work.finally(() => inFlight.delete(work))
  }

  const tick = (i: number) => {
    const kind = PATTERN[i % PATTERN.length]!
    if (inFlight.size >= MAX_IN_FLIGHT) {
      stats.skipped++
      log({ event: 'tick_skipped', kind, inFlight: inFlight.size })
      return
    }
    let tx: ReturnType<typeof build>
    try {
      tx = build(kind)
    } catch (e) {
      stats.failed++
      log({ event: 'tx_failed', kind, error: (e as Error).message })
      return
    }
    stats.sent++
    track(
      sender(tx.from.privateKey)
        .sendAndWait([tx.call], { gas: TX_GAS, timeoutMs: txTimeoutMs })
        .then((r) => {
          stats.confirmed++
          stats.byKind[kind]++
          log({ event: 'tx', kind, from: tx.from.address, to: tx.to, ...tx.detail, tx: r.transactionHash, block: r.blockNumber, gasUsed: r.gasUsed })
        })
        .catch((e: unknown) => {
          stats.failed++
          log({ event: 'tx_failed', kind, from: tx.from.address, error: (e as Error).message?.split('\n')[0] })
        }),
    )
  }

  let lastTopUp = Date.now()
  let toppingUp = false
  const maybeTopUp = () => {
    if (toppingUp || Date.now() - lastTopUp < topUpEveryMs) return
    toppingUp = true
    lastTopUp = Date.now()
    track(
      fundDemoAccounts({ client, keys, sender, log: (e) => log({ ...e, event: String(e.event) }) })
        .then(() => undefined)
        .catch((e: unknown) => log({ event: 'topup_failed', error: (e as Error).message?.split('\n')[0] }))
        .finally(() => (toppingUp = false)),
    )
  }

  if (p.adversarial) {
    track(
      sendAdversarialTraffic({
        client,
        sender,
        outsiderKey: keys.adversary.privateKey,
        funderKey: keys.faucets[0]!.privateKey,
        agentKey: keys.agents[0]!.privateKey,
        agentSecondWallet: keys.alphaSecondWallet.address,
        service: keys.directServices[0]!.address,
        gateway: keys.gateway.address,
        inactiveWallet: keys.retiredAgent.address,
        escrow: keys.escrowAddress,
        log: (e) => log({ ...e, event: String(e.event) }),
      })
        .then((r) => log({ event: 'adversarial_done', ...r.txs }))
        .catch((e: unknown) => log({ event: 'adversarial_failed', error: (e as Error).message?.split('\n')[0] })),
    )
  }

  // drift-free schedule: tick i fires at start + i * period
  const period = 1000 / txPerSecond
  const start = Date.now()
  let i = 0
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const loop = () => {
    if (stopped) return
    stats.ticks++
    tick(i++)
    maybeTopUp()
    timer = setTimeout(loop, Math.max(0, start + i * period - Date.now()))
  }
  loop()

  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      stopped = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      let graceTimer: NodeJS.Timeout | undefined
      const gaveUp = await Promise.race([
        Promise.allSettled([...inFlight]).then(() => false),
        new Promise<boolean>((r) => (graceTimer = setTimeout(() => r(true), stopTimeoutMs))),
      ])
      clearTimeout(graceTimer)
      log({ event: 'demo_stopped', sent: stats.sent, confirmed: stats.confirmed, failed: stats.failed, abandoned: gaveUp ? inFlight.size : 0 })
    })())
  const onAbort = () => void stop()
  if (signal?.aborted) void stop()
  else signal?.addEventListener('abort', onAbort, { once: true })

  return { stop, stats: () => ({ ...stats, byKind: { ...stats.byKind } }) }
}
