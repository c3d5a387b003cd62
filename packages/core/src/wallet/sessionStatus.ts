export type WalletSessionStatus = "active" | "revoked" | "expired" | "not_authorized";

/**
 * A wallet session's state at `now`. Revoked wins over expired, which wins over not yet authorized on
 * chain: each blocks payments (403) with its own code.
 */
export function sessionStatus(session: { expiresAt: Date; revokedAt: Date | null; onChainAuthorizedAt: Date | null }, now: Date): WalletSessionStatus {
  if (session.revokedAt) return "revoked";
  if (session.expiresAt.getTime() <= now.getTime()) return "expired";
  if (!session.onChainAuthorizedAt) return "not_authorized";
  return "active";
}
