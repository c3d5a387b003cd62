const HEX_PREFIX = /^0x[0-9a-f]{2,40}$/;

/**
 * Addresses are stored as `0x` + 40 lowercase hex digits, so the addresses starting with a hex prefix are exactly
 * those between prefix‖000… and prefix‖fff… — a btree range scan whatever the database collation (LIKE 'p%' can
 * only use a btree index under the C collation). Null when `text` is not such a prefix; at least two hex digits are
 * required (`0x` alone would match every address).
 */
export function hexPrefixRange(text: string): { low: string; high: string } | null {
  const p = text.toLowerCase();
  if (!HEX_PREFIX.test(p)) return null;
  return { low: p.padEnd(42, "0"), high: p.padEnd(42, "f") };
}
