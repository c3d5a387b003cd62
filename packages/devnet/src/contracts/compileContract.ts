import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import solc from "solc";
import type { Abi, Hex } from "viem";
import { DevnetError } from "../errors.ts";

/** The devnet's own contracts, each `contracts/<name>.sol` holding `contract <name>`. */
export type ContractName = "GatewayEscrow" | "StreamChannelEscrow";

export const contractSourcePath = (name: ContractName): string => fileURLToPath(new URL(`../../contracts/${name}.sol`, import.meta.url));

/**
 * Fixed compiler settings: the artifacts are committed and a test recompiles to catch drift.
 * evmVersion 'cancun' runs on anvil --network tempo (T0..T4) and avoids newer opcodes.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
} as const;

export type CompiledContract = { abi: Abi; bytecode: Hex; solcVersion: string };

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

/** Compiles contracts/<name>.sol with the npm `solc` package (standard JSON, SOLC_SETTINGS). */
export function compileContract(name: ContractName, source: string = readFileSync(contractSourcePath(name), "utf8")): CompiledContract {
  const file = `${name}.sol`;
  const input = { language: "Solidity", sources: { [file]: { content: source } }, settings: SOLC_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new DevnetError(`solc failed: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  const contract = output.contracts?.[file]?.[name];
  if (!contract) throw new DevnetError(`solc output has no ${name} contract`);
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, solcVersion: solc.version() as string };
}
