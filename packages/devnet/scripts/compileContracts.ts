// Compiles packages/devnet/contracts/*.sol into committed TS artifacts.
// Usage: npx tsx packages/devnet/scripts/compileContracts.ts
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { compileGatewayEscrow } from '../src/contracts/compileGatewayEscrow.ts'
import { renderArtifact } from '../src/contracts/renderArtifact.ts'

const out = fileURLToPath(new URL('../src/contracts/GatewayEscrow.artifact.ts', import.meta.url))
const compiled = compileGatewayEscrow()
writeFileSync(out, renderArtifact('GatewayEscrow', compiled))
console.log(`wrote ${out} (${(compiled.bytecode.length - 2) / 2} bytes of init code, solc ${compiled.solcVersion})`)
