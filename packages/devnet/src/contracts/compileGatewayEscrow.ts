import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import solc from 'solc'
import type { Abi, Hex } from 'viem'
import { DevnetError } from '../errors.ts'

export const GATEWAY_ESCROW_SOURCE_PATH = fileURLToPath(new URL('../../contracts/GatewayEscrow.sol', import.meta.url))

/**
 * Fixed compiler settings: the artifact is committed and a test recompiles to catch drift.
 * evmVersion 'cancun' runs on anvil --network tempo (T0..T4) and avoids newer opcodes.
 */
export const GATEWAY_ESCROW_SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const

export type CompiledContract = { abi: Abi; bytecode: Hex; solcVersion: string }

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[]
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

/** Compiles contracts/GatewayEscrow.sol with the npm `solc` package (standard JSON). */
export function compileGatewayEscrow(source: string = readFileSync(GATEWAY_ESCROW_SOURCE_PATH, 'utf8')): CompiledContract {
  const input = {
    language: 'Solidity',
    sources: { 'GatewayEscrow.sol': { content: source } },
    settings: GATEWAY_ESCROW_SOLC_SETTINGS,
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length) throw new DevnetError(`solc failed: ${errors.map((e) => e.formattedMessage).join('\n')}`)
  const contract = output.contracts?.['GatewayEscrow.sol']?.['GatewayEscrow']
  if (!contract) throw new DevnetError('solc output has no GatewayEscrow contract')
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, solcVersion: solc.version() as string }
}
