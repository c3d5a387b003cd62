// Compiles packages/devnet/contracts/*.sol into committed TS artifacts (src/contracts/<name>.artifact.ts).
// Usage: npx tsx packages/devnet/scripts/compileContracts.ts
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileContract, type ContractName } from "../src/contracts/compileContract.ts";
import { renderArtifact } from "../src/contracts/renderArtifact.ts";

for (const name of ["GatewayEscrow", "StreamChannelEscrow"] satisfies ContractName[]) {
  const out = fileURLToPath(new URL(`../src/contracts/${name}.artifact.ts`, import.meta.url));
  const compiled = compileContract(name);
  writeFileSync(out, renderArtifact(name, compiled));
  console.log(`wrote ${out} (${(compiled.bytecode.length - 2) / 2} bytes of init code, solc ${compiled.solcVersion})`);
}
