import { sessionStatus, type WalletSessionStatus } from "@agent-ledger/core";
import type { BearerSession } from "./bearer.ts";
import { WalletError } from "./WalletError.ts";

const STATE_ERRORS: Record<
  Exclude<WalletSessionStatus, "active">,
  [code: "session_revoked" | "session_expired" | "session_not_authorized", message: string]
> = {
  revoked: ["session_revoked", "this session was revoked"],
  expired: ["session_expired", "this session has expired: pair again"],
  not_authorized: ["session_not_authorized", "this session's key is not authorized on chain yet"],
};

/** 403 unless the session is active now: revoked, expired, or its key not yet authorized on chain. */
export function assertActive(s: Pick<BearerSession, "expires_at" | "revoked_at" | "on_chain_authorized_at">, now: Date): void {
  const status = sessionStatus({ expiresAt: new Date(s.expires_at), revokedAt: s.revoked_at, onChainAuthorizedAt: s.on_chain_authorized_at }, now);
  if (status !== "active") {
    const [code, message] = STATE_ERRORS[status];
    throw new WalletError(code, message);
  }
}
