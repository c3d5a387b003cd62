/** Stored pairing states (`expired` is never stored: it is a pending pairing past its expiry). */
export type StoredPairingStatus = "pending" | "approved" | "claimed";
export type ReportedPairingStatus = "pending" | "expired" | "approved" | "claimed";

/** The status device/poll and lookup report for a stored pairing at `now`. */
export function reportPairingStatus(pairing: { status: string; expiresAt: Date }, now: Date): ReportedPairingStatus {
  if (pairing.status === "approved" || pairing.status === "claimed") return pairing.status;
  return pairing.expiresAt.getTime() <= now.getTime() ? "expired" : "pending";
}
