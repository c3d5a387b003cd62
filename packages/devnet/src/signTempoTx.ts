import type { Address, Hex } from "viem";
import { Account } from "viem/tempo";
import { DEVNET_CHAIN_ID, PATH_USD } from "./constants.ts";

export type TempoCall = { to?: Address; data?: Hex; value?: bigint };

export type SignTempoTxParams = {
  nonce: number;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas?: bigint;
  calls: readonly TempoCall[];
  feeToken?: Address;
  chainId?: number;
};

export type TempoSigner = ReturnType<typeof Account.fromSecp256k1>;

/**
 * Signs a Tempo type-0x76 transaction locally, with everything explicit (no RPC): protocol nonce lane
 * (nonceKey 0 — anvil drops expiring nonces), gas, fees, fee token (pathUSD by default).
 */
export async function signTempoTx(account: TempoSigner, p: SignTempoTxParams): Promise<Hex> {
  return account.signTransaction({
    type: "tempo",
    chainId: p.chainId ?? DEVNET_CHAIN_ID,
    nonce: p.nonce,
    nonceKey: 0n,
    gas: p.gas,
    maxFeePerGas: p.maxFeePerGas,
    maxPriorityFeePerGas: p.maxPriorityFeePerGas ?? 0n,
    feeToken: p.feeToken ?? PATH_USD,
    calls: p.calls,
  });
}
