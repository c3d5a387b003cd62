import { compileContract, contractSourcePath, SOLC_SETTINGS, type CompiledContract } from "./compileContract.ts";

export type { CompiledContract } from "./compileContract.ts";
export const GATEWAY_ESCROW_SOURCE_PATH = contractSourcePath("GatewayEscrow");
export const GATEWAY_ESCROW_SOLC_SETTINGS = SOLC_SETTINGS;

/** Compiles contracts/GatewayEscrow.sol (compileContract's fixed settings). */
export function compileGatewayEscrow(source?: string): CompiledContract {
  return compileContract("GatewayEscrow", source);
}
