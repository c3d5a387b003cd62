import type { Address, Hash, Hex } from "viem";
import { Account } from "viem/tempo";
import type { DevnetClient } from "./chain.ts";
import { TxFailedError } from "./errors.ts";
import { signTempoTx, type TempoCall } from "./signTempoTx.ts";

/** A mined receipt as the devnet client formats it (Tempo fields included). */
export type DevnetReceipt = Awaited<ReturnType<DevnetClient["waitForTransactionReceipt"]>>;

export type SendOptions = { gas: bigint; timeoutMs?: number };

export type TxSender = {
  address: Address;
  /** Signs with the next local nonce and submits; resolves with the hash once the node accepted it. */
  send(calls: readonly TempoCall[], options: SendOptions): Promise<Hash>;
  /** send() then wait for the receipt (timeout); throws TxFailedError when it reverted or never mined. */
  sendAndWait(calls: readonly TempoCall[], options: SendOptions): Promise<DevnetReceipt>;
  /** Re-reads the account's nonce from the node (after a failed/dropped tx). */
  resync(): Promise<void>;
};

/**
 * One account's transaction sender: signs 0x76 txs locally with explicit nonce (local counter, nonceKey 0),
 * gas and fees, so several can be in flight at once without viem's expiring nonces or eth_fillTransaction.
 */
export function createTxSender({ client, privateKey }: { client: DevnetClient; privateKey: Hex }): TxSender {
  const account = Account.fromSecp256k1(privateKey);
  let nonce: Promise<number> | undefined;
  let maxFeePerGas: Promise<bigint> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  // 'latest', not 'pending': anvil 1.7.1 (T4) counts the account's pending expiring-nonce transactions (mppx payments
  // from the same key) into its 'pending' nonce, so a nonceKey-0 transaction signed with it waits forever for a gap.
  // Our own in-flight transactions are covered by the local counter; a resync after a failure may briefly reuse a
  // still-pending nonce, which the node refuses, and the next resync reads past it.
  const readNonce = () => client.getTransactionCount({ address: account.address, blockTag: "latest" });
  const resync = async () => {
    nonce = readNonce();
    await nonce;
  };

  const send = (calls: readonly TempoCall[], { gas }: SendOptions): Promise<Hash> => {
    // serialize sign+submit per account so nonces reach the node in order
    const run = queue.then(async () => {
      nonce ??= readNonce();
      maxFeePerGas ??= client.getGasPrice().then((p) => p * 10n); // headroom for a rising base fee; only the base fee is paid
      const n = await nonce;
      const raw = await signTempoTx(account, { nonce: n, gas, maxFeePerGas: await maxFeePerGas, calls });
      try {
        const hash = (await client.request({ method: "eth_sendRawTransaction", params: [raw] })) as Hash;
        nonce = Promise.resolve(n + 1);
        return hash;
      } catch (e) {
        nonce = undefined; // re-read nonce and gas price before the next send
        maxFeePerGas = undefined;
        throw e;
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };

  const sendAndWait = async (calls: readonly TempoCall[], options: SendOptions): Promise<DevnetReceipt> => {
    const hash = await send(calls, options);
    let receipt: DevnetReceipt;
    try {
      receipt = await client.waitForTransactionReceipt({ hash, timeout: options.timeoutMs ?? 20_000, pollingInterval: 100 });
    } catch {
      nonce = undefined; // the node may have dropped it: re-read the nonce before the next send
      throw new TxFailedError(`tx ${hash} from ${account.address} not mined within ${options.timeoutMs ?? 20_000}ms`, hash);
    }
    if (receipt.status !== "success") throw new TxFailedError(`tx ${hash} from ${account.address} reverted (gasUsed ${receipt.gasUsed})`, hash);
    return receipt;
  };

  return { address: account.address, send, sendAndWait, resync };
}
