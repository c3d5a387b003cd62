import { createDevnetClient, DEV_PRIVATE_KEYS, devnetChain, PATH_USD, withTimeout } from "@agent-ledger/devnet";
import { createClient, http, publicActions, walletActions, type Hex } from "viem";
import { Account, tempoActions, withRelay } from "viem/tempo";
import type { SoftAuthenticator } from "./softAuthenticator.ts";
import { call, registerUser } from "./walletApp.ts";

export interface Grant {
  spend_cap_wei: string;
  per_call_cap_wei: string;
  session_ttl_seconds: number;
  token?: string;
}
export const DEFAULT_GRANT: Grant = { spend_cap_wei: "10000000", per_call_cap_wei: "1000000", session_ttl_seconds: 3600 };

/** The person's passkey as viem's Tempo root account (same P-256 key as the software authenticator). */
export function rootAccount(authn: SoftAuthenticator, origin: string) {
  return Account.fromHeadlessWebAuthn(authn.p256PrivateKeyHex, { rpId: authn.rpId, origin });
}

/** What the approval page does in the browser: a client on the RPC with our relay as fee payer, signing with the passkey. */
export function pageClient(authn: SoftAuthenticator, origin: string, rpcUrl: string, relayUrl: string) {
  return createClient({ chain: devnetChain, transport: withRelay(http(rpcUrl), http(relayUrl)), account: rootAccount(authn, origin), pollingInterval: 100 })
    .extend(publicActions)
    .extend(walletActions)
    .extend(tempoActions());
}

export const funder = (rpcUrl: string) => createDevnetClient({ url: rpcUrl, account: Account.fromSecp256k1(DEV_PRIVATE_KEYS[0]) });

export async function fund(rpcUrl: string, to: Hex, amount: bigint): Promise<void> {
  const r = await funder(rpcUrl).token.transferSync({ token: PATH_USD, to, amount });
  if (r.receipt.status !== "success") throw new Error("funding failed");
}

/** device/start as the CLI does. */
export async function startPairing(base: string, label = "test agent") {
  const res = await call(base, "POST", "/api/wallet/device/start", { body: { agent_label: label } });
  if (res.status !== 200) throw new Error(`start ${res.status} ${res.text}`);
  return res.body as { code: string; device_id: string; approve_url: string; expires_at: string; poll_interval_seconds: number; pairing_id: string };
}

/** approve-init → the passkey authorizes the agent key through the relay (sponsored) → the tx hash. */
export async function authorizeOnChain(base: string, rpcUrl: string, authn: SoftAuthenticator, init: any) {
  const client = pageClient(authn, base, rpcUrl, init.chain.relay_url);
  const { receipt } = await withTimeout(
    client.accessKey.authorizeSync({
      accessKey: { address: init.agent_key_address, type: "secp256k1" },
      expiry: init.expiry_unix,
      limits: [{ token: init.token, limit: BigInt(init.spend_cap_wei) }],
      gas: 2_000_000n,
      feePayer: true,
      nonceKey: 0n,
      validBefore: Math.floor(Date.now() / 1000) + 600,
    } as never),
    20_000,
    "authorize agent key",
  );
  return receipt;
}

/**
 * The whole pairing as CLI + page would do it: register (or reuse) a passkey user, start, approve-init, authorize on
 * chain through the relay, finalize, poll for the token.
 */
export async function pairAgent(
  base: string,
  rpcUrl: string,
  opts: { authn: SoftAuthenticator; jar?: Record<string, string>; grant?: Partial<Grant>; label?: string },
) {
  const jar = opts.jar ?? (await registerUser(base, opts.authn)).jar;
  const started = await startPairing(base, opts.label);
  const init = await call(base, "POST", "/api/wallet/device/approve-init", { jar, body: { code: started.code, ...DEFAULT_GRANT, ...opts.grant } });
  if (init.status !== 200) throw new Error(`approve-init ${init.status} ${init.text}`);
  const receipt = await authorizeOnChain(base, rpcUrl, opts.authn, init.body);
  const fin = await call(base, "POST", "/api/wallet/device/approve-finalize", { jar, body: { code: started.code, tx_hash: receipt.transactionHash } });
  if (fin.status !== 200) throw new Error(`finalize ${fin.status} ${fin.text}`);
  const poll = await call(base, "GET", `/api/wallet/device/poll?device_id=${started.device_id}`);
  if (poll.body?.status !== "approved") throw new Error(`poll ${poll.status} ${poll.text}`);
  return {
    jar,
    started,
    init: init.body,
    receipt,
    token: poll.body as { access_token: string; session_id: string; managed_address: Hex; agent_key_address: Hex },
  };
}
