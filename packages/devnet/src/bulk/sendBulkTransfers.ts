import { encodeFunctionData, stringToHex, type Address, type Hash, type Hex } from "viem";
import { Abis, Account } from "viem/tempo";
import { createDevnetClient } from "../chain.ts";
import { PATH_USD } from "../constants.ts";
import { DevnetError, TimeoutError } from "../errors.ts";
import { rpcRequest } from "../rpcRequest.ts";
import { signTempoTx } from "../signTempoTx.ts";

/** Measured on anvil 1.7.1 --network tempo --hardfork T4 (see docs/devnet.md). */
export const T4_GAS = {
  /** transfer between accounts that both already hold the token: 35,770 (transferWithMemo ~38,100) */
  transfer: 60_000n,
  /** TIP-1000 state creation: a recipient's first balance of a token, or a sender's first tx (nonce 0) */
  newState: 250_000n,
} as const;

export type SendBulkTransfersParams = {
  rpcUrl: string;
  count: number;
  /** Private keys of funded senders (tx i is sent by senders[i % n]). */
  senders: readonly Hex[];
  /** Recipients (tx i pays recipients[i % n]); prefer accounts that already hold the token. */
  recipients: readonly Address[];
  withMemo: boolean;
  /** eth_sendRawTransaction per JSON-RPC batch (default 250). */
  batchSize?: number;
  token?: Address;
  /** Wait for the pool to drain at most this long (default 120 s). */
  timeoutMs?: number;
  log?: (event: Record<string, unknown>) => void;
};

export type SendBulkTransfersResult = { firstBlock: bigint; lastBlock: bigint; txCount: number; hashes: Hash[]; gasLimits: bigint[] };

/**
 * Pre-signs `count` TIP-20 transfers (0x76, explicit nonce/gas/fees, nonceKey 0), submits them in JSON-RPC
 * batches, waits until the node's pool is empty, then checks every sender's nonce advanced as expected.
 * Run the devnet with --block-time (automine stalls under floods).
 */
export async function sendBulkTransfers(p: SendBulkTransfersParams): Promise<SendBulkTransfersResult> {
  const { rpcUrl, count, withMemo, batchSize = 250, token = PATH_USD, timeoutMs = 120_000, log } = p;
  if (!p.senders.length || !p.recipients.length) throw new DevnetError("sendBulkTransfers needs senders and recipients");
  const client = createDevnetClient({ url: rpcUrl });
  const senders = p.senders.map((k) => Account.fromSecp256k1(k));

  const [startBlock, gasPrice, nonces, balances] = await Promise.all([
    client.getBlockNumber(),
    client.getGasPrice(),
    Promise.all(senders.map((s) => client.getTransactionCount({ address: s.address, blockTag: "pending" }))),
    Promise.all(p.recipients.map((r) => client.readContract({ address: token, abi: Abis.tip20, functionName: "balanceOf", args: [r] }))),
  ]);
  // headroom: full blocks raise the base fee 12.5% each (20 → 38.5 gwei over a 10k-tx run); the tx pays
  // only the base fee (tip 0), the cap just has to stay above it
  const maxFeePerGas = gasPrice * 10n;

  const raws: Hex[] = [];
  const gasLimits: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const s = i % senders.length;
    const r = i % p.recipients.length;
    const nonce = nonces[s]! + Math.floor(i / senders.length);
    const to = p.recipients[r]!;
    const amount = 1_000n + BigInt(i % 1_000_000);
    const data = withMemo
      ? encodeFunctionData({ abi: Abis.tip20, functionName: "transferWithMemo", args: [to, amount, stringToHex(`bulk-${i}`, { size: 32 })] })
      : encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [to, amount] });
    // state-creation surcharges: sender's first tx ever; recipient without a balance yet (we cannot know
    // which of several txs to the same fresh recipient runs first, so all of them carry the surcharge)
    const gas = T4_GAS.transfer + (nonce === 0 ? T4_GAS.newState : 0n) + (balances[r] === 0n ? T4_GAS.newState : 0n);
    gasLimits.push(gas);
    raws.push(await signTempoTx(senders[s]!, { nonce, gas, maxFeePerGas, calls: [{ to: token, data }] }));
  }
  log?.({ event: "bulk_signed", count });

  const hashes: Hash[] = [];
  const started = Date.now();
  for (let i = 0; i < raws.length; i += batchSize) {
    const results = await rpcRequest(
      rpcUrl,
      raws.slice(i, i + batchSize).map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
    );
    const failed = results.find((r) => r.error);
    if (failed) throw new DevnetError(`bulk tx ${i + results.indexOf(failed)} rejected: ${failed.error!.message}`);
    for (const r of results) hashes.push(r.result as Hash);
  }
  log?.({ event: "bulk_submitted", count, ms: Date.now() - started });

  while (true) {
    const [status] = await rpcRequest(rpcUrl, [{ method: "txpool_status" }]);
    const st = status?.result as { pending: string; queued: string } | undefined;
    if (st && BigInt(st.pending) === 0n && BigInt(st.queued) === 0n) break;
    if (Date.now() - started > timeoutMs) throw new TimeoutError(`bulk: txpool not empty after ${timeoutMs}ms (${JSON.stringify(st)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const lastBlock = await client.getBlockNumber();

  // the pool also empties when the node silently drops txs: count what was really mined via nonces
  const after = await Promise.all(senders.map((s) => client.getTransactionCount({ address: s.address })));
  const txCount = after.reduce((sum, n, s) => sum + (n - nonces[s]!), 0);
  log?.({ event: "bulk_mined", txCount, firstBlock: startBlock + 1n, lastBlock, ms: Date.now() - started });
  return { firstBlock: startBlock + 1n, lastBlock, txCount, hashes, gasLimits };
}
