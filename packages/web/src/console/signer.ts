// Loaded on demand (a separate chunk: viem and the WebAuthn helper stay out of the explorer's main bundle). The passkey
// sign-in, and the on-chain revoke the passkey signs: revokeKey calls to the AccountKeychain, every JSON-RPC call sent
// to our own relay (same origin, so the page's Content Security Policy stays connect-src 'self'), gas sponsored.
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { createClient, custom, publicActions, walletActions, type Hex } from "viem";
import { Account, Actions, tempoActions, withRelay } from "viem/tempo";
import { chainFor } from "../shared/chainFor.ts";
import type { RevokeRequest } from "./api.ts";

/** Runs the passkey prompt for the options the API gave; returns the AuthenticationResponseJSON to verify. */
export async function passkeyAssertion(options: unknown): Promise<unknown> {
  const b = options as { options?: unknown; publicKey?: unknown };
  const optionsJSON = (b?.options ?? b?.publicKey ?? options) as PublicKeyCredentialRequestOptionsJSON;
  return startAuthentication({ optionsJSON });
}

/** How long the sponsored revoke stays valid (validBefore), seconds. */
const VALID_FOR_SECONDS = 600;

/** The passkey signs one transaction revoking every key of the request; answers its hash once the relay returned the receipt. */
export async function revokeKeysOnChain(request: RevokeRequest): Promise<{ txHash: Hex; status: string }> {
  const account = Account.fromWebAuthnP256({ id: request.credential_id, publicKey: request.public_key_uncompressed as Hex });
  if (account.address.toLowerCase() !== request.managed_address.toLowerCase())
    throw new Error(`this passkey's account ${account.address} is not ${request.managed_address}`);
  const relayUrl = new URL(request.chain.relay_url, window.location.href).pathname;
  const viaRelay = custom({
    async request({ method, params }) {
      const res = await fetch(relayUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
      if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
      return body.result;
    },
  });
  const chain = chainFor({ id: request.chain.id, rpc_url: relayUrl, relay_url: relayUrl }, request.token as Hex);
  const client = createClient({ account, chain, transport: withRelay(viaRelay, viaRelay), pollingInterval: 500 })
    .extend(publicActions)
    .extend(walletActions)
    .extend(tempoActions());
  const receipt = (await client.sendTransactionSync({
    calls: request.agent_key_addresses.map((k) => Actions.accessKey.revoke.call({ accessKey: k as Hex })),
    gas: 1_000_000n,
    feePayer: true,
    nonceKey: 0n,
    validBefore: Math.floor(Date.now() / 1000) + VALID_FOR_SECONDS,
  } as never)) as { transactionHash: Hex; status: string };
  return { txHash: receipt.transactionHash, status: receipt.status };
}
