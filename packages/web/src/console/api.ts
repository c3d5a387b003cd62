// The owner console's calls: the same REST API the CLI uses (/api/wallet/…, /api/webhooks/…), same origin, with the
// passkey session cookie. Browsers send Origin on these requests (the API refuses cross-site cookie writes).
import { ApiCallError } from "@agent-ledger/client";
import { pageClient } from "../approve/pageClient.ts";
import type { Balance } from "./balance.ts";

export { ApiCallError };

/** A call to our API with the session cookie (the approval page's client; 60 s by default: revoke-confirm waits for a receipt). */
export const rest = <T>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown, timeoutMs = 60_000) =>
  pageClient.request<T>(method, path, { body, timeoutMs }).then(
    (r) => r.body,
    (error: unknown) => {
      // a 401 on any call but the sign-in's own means the passkey sign-in ended while the page was open
      if (error instanceof ApiCallError && error.status === 401 && !path.startsWith("/api/wallet/webauthn/") && path !== "/api/wallet/me")
        for (const f of signedOutListeners) f();
      throw error;
    },
  );

const signedOutListeners = new Set<() => void>();
/** Calls `f` whenever a call answers 401 (the sign-in ended); returns the unsubscribe. */
export function onSignedOut(f: () => void): () => void {
  signedOutListeners.add(f);
  return () => void signedOutListeners.delete(f);
}

export interface Me {
  user_id: string;
  managed_address: string;
  credential_id: string;
  public_key_uncompressed: string;
}

export interface ChainRevoke {
  status: "pending" | "confirmed" | "failed" | null;
  tx_hash: string | null;
  explorer_url: string | null;
  error: string | null;
  updated_at: string | null;
}

export interface OwnerSession {
  session_id: string;
  agent_label: string | null;
  agent_key_address: string;
  token: string;
  status: "active" | "expired" | "revoked" | "pending";
  created_at: string;
  expires_at: string;
  spend_cap_wei: string;
  per_call_cap_wei: string;
  spend_used_wei: string;
  spend_reserved_wei: string;
  spend_remaining_wei: string;
  revoked_at: string | null;
  revoked_by: string | null;
  chain_revoke: ChainRevoke;
  payments_count: number;
  last_payment: { id: string; created_at: string; to: string; amount_wei: string; status: string; tx_hash: string | null } | null;
}

export interface OwnerPayment {
  id: string;
  created_at: string;
  to: string;
  amount_wei: string;
  token: string;
  memo: string | null;
  status: string;
  tx_hash: string | null;
  explorer_url: string | null;
  error: string | null;
}

export interface RevokeRequest {
  session_ids: string[];
  agent_key_addresses: string[];
  account_keychain_address: string;
  managed_address: string;
  credential_id: string;
  public_key_uncompressed: string;
  chain: { id: number; rpc_url: string | null; relay_url: string };
  token: string;
}

export interface RevokeAnswer {
  sessions: OwnerSession[];
  chain_revoke_request: RevokeRequest | null;
}

export const walletApi = {
  async me(): Promise<Me | null> {
    try {
      return await rest<Me>("GET", "/api/wallet/me");
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 401) return null;
      throw error;
    }
  },
  logout: () => rest<unknown>("POST", "/api/wallet/logout", {}),
  authOptions: () => rest<unknown>("POST", "/api/wallet/webauthn/auth/options", {}),
  authVerify: (response: unknown) => rest<Me>("POST", "/api/wallet/webauthn/auth/verify", response),
  sessions: () => rest<{ managed_address: string; items: OwnerSession[] }>("GET", "/api/wallet/sessions"),
  session: (id: string) => rest<OwnerSession>("GET", `/api/wallet/sessions/${encodeURIComponent(id)}`),
  payments: (id: string, cursor: string | null, limit = 20) =>
    rest<{ items: OwnerPayment[]; next_cursor: string | null }>(
      "GET",
      `/api/wallet/sessions/${encodeURIComponent(id)}/payments?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    ),
  balances: () => rest<{ managed_address: string; read_at: string; balances: Balance[] }>("GET", "/api/wallet/balances"),
  revoke: (id: string) => rest<RevokeAnswer>("POST", `/api/wallet/sessions/${encodeURIComponent(id)}/revoke`, {}),
  revokeAll: () => rest<RevokeAnswer>("POST", "/api/wallet/sessions/revoke-all", {}),
  confirm: (body: { session_ids: string[]; tx_hash?: string; error?: string }) =>
    rest<{ sessions: OwnerSession[] }>("POST", "/api/wallet/sessions/revoke-confirm", body, 90_000),
};
