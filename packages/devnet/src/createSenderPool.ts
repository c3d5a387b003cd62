import type { Hex } from "viem";
import type { DevnetClient } from "./chain.ts";
import { createTxSender, type TxSender } from "./createTxSender.ts";

/** Memoized TxSender per private key, so every user of an account shares one local nonce counter. */
export function createSenderPool(client: DevnetClient): (privateKey: Hex) => TxSender {
  const senders = new Map<string, TxSender>();
  return (privateKey) => {
    let s = senders.get(privateKey);
    if (!s) senders.set(privateKey, (s = createTxSender({ client, privateKey })));
    return s;
  };
}
