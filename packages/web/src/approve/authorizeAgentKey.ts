import { createClient, http, publicActions, walletActions, type Hex } from "viem";
import { Account, tempoActions, withRelay } from "viem/tempo";
import type { ApproveInit } from "./api.ts";
import { chainFor } from "../shared/chainFor.ts";

/** Gas for a key authorization: node estimates leave out the attached authorization's intrinsic cost. */
export const AUTHORIZE_GAS = 2_000_000n;
/** How long the sponsored transaction stays valid (validBefore), seconds. */
const VALID_FOR_SECONDS = 600;

export interface AuthorizeResult {
  txHash: Hex;
  status: "success" | "reverted";
}

/**
 * The passkey account (rebuilt from the credential id and public key the server stored) authorizes the agent's
 * secp256k1 key on the AccountKeychain: expiry = the session's, spending limit = the session's spend cap in the
 * session's token. Two WebAuthn assertions (the key authorization, then the 0x76 transaction). Fees are
 * sponsored by our relay (`withRelay` + `feePayer: true`); sponsored transactions use the protocol nonce lane
 * (`nonceKey: 0n` with `validBefore`), and the gas is explicit.
 */
export async function authorizeAgentKey(
  init: ApproveInit,
  options: { timeoutMs?: number; onAssertion?: (count: number) => void } = {},
): Promise<AuthorizeResult> {
  let assertions = 0;
  const account = Account.fromWebAuthnP256(
    { id: init.credential_id, publicKey: init.public_key_uncompressed },
    {
      // Counts the passkey assertions so the page can tell "waiting for you" from "waiting for the chain".
      getFn: async (request) => {
        const credential = await navigator.credentials.get(request as CredentialRequestOptions);
        options.onAssertion?.(++assertions);
        return credential;
      },
    },
  );
  if (account.address.toLowerCase() !== init.managed_address.toLowerCase()) {
    throw new Error(`the passkey account ${account.address} is not the signed-in account ${init.managed_address}`);
  }
  const timeout = options.timeoutMs ?? 300_000; // includes the time the person takes at the two passkey prompts
  const client = createClient({
    account,
    chain: chainFor(init.chain, init.token),
    transport: withRelay(http(init.chain.rpc_url, { timeout: 30_000 }), http(init.chain.relay_url, { timeout: 30_000 })),
    pollingInterval: 500,
  })
    .extend(publicActions)
    .extend(walletActions)
    .extend(tempoActions());

  const work = client.accessKey.authorizeSync({
    accessKey: { address: init.agent_key_address, type: "secp256k1" },
    expiry: init.expiry_unix,
    limits: [{ token: init.token, limit: BigInt(init.spend_cap_wei) }],
    gas: AUTHORIZE_GAS,
    feePayer: true,
    nonceKey: 0n,
    validBefore: Math.floor(Date.now() / 1000) + VALID_FOR_SECONDS,
  } as Parameters<typeof client.accessKey.authorizeSync>[0]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`the network did not confirm the authorization within ${timeout / 1000} s`), { name: "TimeoutError" })),
      timeout,
    );
  });
  try {
    const { receipt } = await Promise.race([work, timedOut]);
    return { txHash: receipt.transactionHash, status: receipt.status === "success" ? "success" : "reverted" };
  } finally {
    clearTimeout(timer);
  }
}
