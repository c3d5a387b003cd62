import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { createRpcClient } from '@agent-ledger/core'
import { DEVNET_CHAIN_ID } from './constants.ts'
import { AnvilStartError } from './errors.ts'
import { resolveAnvilBinary } from './resolveAnvilBinary.ts'

export type StartAnvilOptions = {
  /** 0 (default) lets anvil pick a free port. */
  port?: number
  hardfork?: 'T4'
  /** Seconds per block; omit for automine (one block per tx). Use it for bulk loads. */
  blockTime?: number
  /** Receives every stdout/stderr line of anvil. */
  log?: (line: string) => void
  /** How long to wait for `eth_chainId` to answer (default 15 s). */
  readyTimeoutMs?: number
  /** How long `stop()` waits after SIGTERM before SIGKILL (default 3 s). */
  stopGraceMs?: number
  /** Binary to run (default: resolveAnvilBinary()). */
  binary?: string
  /** Extra CLI arguments. */
  args?: string[]
}

export type AnvilInstance = { url: string; port: number; pid: number; stop(): Promise<void> }

const live = new Set<ChildProcess>()
let hooksInstalled = false

/** Kills live anvil children when the parent exits, or on a signal nobody else handles. */
function installExitHooks(): void {
  if (hooksInstalled) return
  hooksInstalled = true
  process.on('exit', () => {
    for (const c of live) c.kill('SIGKILL')
  })
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      if (process.listenerCount(sig) > 1) return // the application handles it (e.g. main.ts stops cleanly)
      for (const c of live) c.kill('SIGKILL')
      process.off(sig, handler)
      process.kill(process.pid, sig) // keep the default "die by signal" semantics
    }
    process.on(sig, handler)
  }
}

/** Spawns `anvil --network tempo --hardfork T4` and resolves once `eth_chainId` answers 31337. */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const { port = 0, hardfork = 'T4', blockTime, log, readyTimeoutMs = 15_000, stopGraceMs = 3_000 } = options
  const binary = options.binary ?? resolveAnvilBinary()
  const args = ['--network', 'tempo', '--hardfork', hardfork, '--host', '127.0.0.1', '--port', String(port)]
  if (blockTime !== undefined) args.push('--block-time', String(blockTime))
  args.push(...(options.args ?? []))

  installExitHooks()
  // Own process group: a terminal Ctrl-C reaches only the parent, which can stop its users first and then
  // anvil. The exit/signal hooks above still kill it when the parent goes away.
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  live.add(child)
  // A running devnet does not keep the parent alive by itself; the exit hook kills it when the parent exits.
  child.unref()
  for (const s of [child.stdout, child.stderr]) (s as unknown as { unref?: () => void }).unref?.()
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  }).then(() => {
    live.delete(child)
  })

  // Always drain both pipes (a full pipe would block anvil) and look for the listening port.
  const tail: string[] = []
  let listenPort: number | undefined
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line)
      if (tail.length > 20) tail.shift()
      const m = /Listening on [^\s:]+:(\d+)/.exec(line)
      if (m) listenPort = Number(m[1])
      log?.(line)
    })
  }

  let spawnError: Error | undefined
  child.once('error', (e) => (spawnError = e))
  let dead = false
  void exited.then(() => (dead = true))

  const stop = async (): Promise<void> => {
    if (!dead) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs)
      await exited
      clearTimeout(timer)
    }
  }

  const fail = async (why: string): Promise<never> => {
    await stop()
    throw new AnvilStartError(`anvil (${binary}) ${why}${tail.length ? `; last output: ${tail.slice(-5).join(' | ')}` : ''}`)
  }

  const deadline = Date.now() + readyTimeoutMs
  while (true) {
    if (spawnError) return fail(`failed to spawn: ${spawnError.message}`)
    if (dead) return fail(`exited early (code ${child.exitCode}, signal ${child.signalCode})`)
    if (Date.now() > deadline) return fail(`did not answer eth_chainId within ${readyTimeoutMs}ms`)
    if (listenPort !== undefined) {
      const url = `http://127.0.0.1:${listenPort}`
      const chainId = await rpcChainId(url)
      if (chainId !== undefined) {
        if (chainId !== DEVNET_CHAIN_ID) return fail(`answered chain id ${chainId}, expected ${DEVNET_CHAIN_ID}`)
        return { url, port: listenPort, pid: child.pid!, stop }
      }
    }
    await new Promise((r) => setTimeout(r, 25))
  }
}

async function rpcChainId(url: string): Promise<number | undefined> {
  try {
    const id = await createRpcClient(url, { timeoutMs: 1_000 }).request<string | undefined>('eth_chainId', [])
    return id ? Number(BigInt(id)) : undefined
  } catch {
    return undefined
  }
}
