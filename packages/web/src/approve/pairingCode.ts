/**
 * A pairing code as a person types it: 8 letters of the RFC 8628 consonant alphabet (BCDFGHJKLMNPQRSTVWXZ), case,
 * spaces and dashes ignored. Returns `XXXX-XXXX`, or null when it cannot be a code.
 */
export function normalizePairingCode(input: string | null | undefined): string | null {
  if (!input) return null;
  const raw = input.toUpperCase().replace(/[\s-]/g, "");
  if (!/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/.test(raw)) return null;
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/** "4:05" for a number of seconds (clamped at 0). */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
