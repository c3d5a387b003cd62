import { encodeFunctionData, keccak256, type Hash, type Hex } from "viem";
import { Abis } from "viem/tempo";
import type { WalletContext } from "./context.ts";
import type { PayInput } from "./parsePayInput.ts";
import { signerAccount, type SessionSigner } from "./sessionSigner.ts";

/** A payment's signed transaction, or why none could be signed (then nothing can be broadcast). */
export type SignedPayment =
  | { raw: Hex; txHash: Hash; validBefore: number; failure: null }
  | { raw: null; txHash: null; validBefore: null; failure: string | null };

/** Nothing signed: the wallet is not configured (the reservation refuses it). */
export const NOT_SIGNED: SignedPayment = { raw: null, txHash: null, validBefore: null, failure: null };

/** UUID → 128-bit integer: the payment's own 2D nonce lane (one transaction per lane, nonce 0). */
function nonceKeyOf(paymentId: string): bigint {
  return BigInt(`0x${paymentId.replace(/-/g, "")}`);
}

/**
 * Signs the payment's TIP-20 transferWithMemo with the session's agent key, gas paid by the sponsor, valid for
 * `paymentValiditySeconds`. The key is decrypted only here, to sign; it is not kept (sessionSigner.ts). A failure
 * (chain id or gas price unavailable) is returned as `failure`: the payment certainly does not happen.
 */
export async function signPayment(ctx: WalletContext, signer: SessionSigner, input: PayInput, paymentId: string): Promise<SignedPayment> {
  try {
    const [chainId, maxFeePerGas] = await Promise.all([ctx.chain.chainId(), ctx.chain.maxFeePerGas()]);
    const validBefore = Math.floor(Date.now() / 1000) + ctx.config.paymentValiditySeconds;
    const raw = (await signerAccount(signer, ctx.config.masterKey!).signTransaction({
      type: "tempo",
      chainId,
      nonce: 0,
      nonceKey: nonceKeyOf(paymentId),
      validBefore,
      gas: ctx.config.paymentGas,
      maxFeePerGas,
      maxPriorityFeePerGas: 0n,
      feeToken: ctx.config.defaultToken,
      calls: [
        {
          to: signer.tokenAddress,
          data: encodeFunctionData({ abi: Abis.tip20, functionName: "transferWithMemo", args: [input.to, input.amount, input.memo.bytes32] }),
        },
      ],
      feePayer: ctx.chain.sponsor!,
    } as never)) as Hex;
    return { raw, txHash: keccak256(raw), validBefore, failure: null };
  } catch (error) {
    return { raw: null, txHash: null, validBefore: null, failure: error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : "signing failed" };
  }
}
