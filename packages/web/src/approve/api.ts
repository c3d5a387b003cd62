import { ApiCallError } from "@agent-ledger/client";
import { pageClient } from "./pageClient.ts";

// Same-origin calls to the wallet API (the page is served by the API itself, so cookies just work).

const BASE = "/api/wallet";

export interface WalletUser {
  user_id: string;
  managed_address: `0x${string}`;
  credential_id: string;
  public_key_uncompressed: `0x${string}`;
}

export interface Lookup {
  code: string;
  agent_label: string | null;
  status: "pending" | "expired" | "approved" | "claimed" | string;
  expires_at: string;
}

export interface ApproveInit {
  pairing_id: string;
  session_id: string;
  credential_id: string;
  public_key_uncompressed: `0x${string}`;
  managed_address: `0x${string}`;
  agent_key_address: `0x${string}`;
  /** Returned by the server, never used nor kept by the page (the authorization needs only the address). */
  agent_private_key?: string;
  chain: { id: number; rpc_url: string; relay_url: string; hardfork?: string; fee_token?: string; explorer_url?: string };
  account_keychain_address: `0x${string}`;
  expiry_unix: number;
  token: `0x${string}`;
  spend_cap_wei: string;
  per_call_cap_wei: string;
  agent_label: string | null;
}

const request = async <T>(method: "GET" | "POST", path: string, body?: unknown, timeoutMs?: number) =>
  (await pageClient.request<T>(method, BASE + path, { body, timeoutMs })).body;

export const api = {
  /** The signed-in user (cookie), or null. */
  async me(): Promise<WalletUser | null> {
    try {
      return await request<WalletUser>("GET", "/me");
    } catch (error) {
      if (error instanceof ApiCallError && (error.status === 401 || error.status === 404)) return null;
      throw error;
    }
  },
  /** `display_name` is what the authenticator shows for the passkey (≤ 64 characters). */
  registerOptions: (displayName: string) => request<unknown>("POST", "/webauthn/register/options", { display_name: displayName.slice(0, 64) }),
  /** Body: the RegistrationResponseJSON itself (what startRegistration returns). */
  registerVerify: (response: unknown) => request<WalletUser>("POST", "/webauthn/register/verify", response),
  authOptions: () => request<unknown>("POST", "/webauthn/auth/options", {}),
  /** Body: the AuthenticationResponseJSON itself. */
  authVerify: (response: unknown) => request<WalletUser>("POST", "/webauthn/auth/verify", response),
  lookup: (code: string) => request<Lookup>("GET", `/device/lookup?code=${encodeURIComponent(code)}`),
  approveInit: (body: { code: string; spend_cap_wei: string; per_call_cap_wei: string; session_ttl_seconds: number; token?: string }) =>
    request<ApproveInit>("POST", "/device/approve-init", body),
  /** The server waits (bounded) for the receipt, so this may take a while. */
  approveFinalize: (body: { code: string; tx_hash: string }) => request<Record<string, unknown>>("POST", "/device/approve-finalize", body, 90_000),
};

/** The options object of an options endpoint, whether sent bare or wrapped (`{ options }` / `{ publicKey }`). */
export function unwrapOptions<T>(body: unknown): T {
  const b = body as { options?: unknown; publicKey?: unknown };
  return (b?.options ?? b?.publicKey ?? body) as T;
}
