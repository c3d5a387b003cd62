/**
 * Exact token amounts for people: 1250000n (6 decimals) → "1.25". Bigint arithmetic only, never floats.
 * At least `minFraction` decimals ("10.00"), no trailing zeros beyond them; `group` puts commas between thousands
 * ("1,234.50"). Negative values keep their sign. Browser-safe (no imports): the web explorer bundles this file
 * through the `@agent-ledger/core/formatTokenUnits` export and the CLI uses it too, so both print the same digits.
 */
export function formatTokenUnits(units: bigint | string, options: { decimals?: number; minFraction?: number; group?: boolean } = {}): string {
  const decimals = options.decimals ?? 6;
  const minFraction = options.minFraction ?? 2;
  let v = typeof units === "bigint" ? units : BigInt(units);
  const sign = v < 0n ? "-" : "";
  if (v < 0n) v = -v;
  const base = 10n ** BigInt(decimals);
  let whole = (v / base).toString();
  if (options.group) whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  let frac = decimals > 0 ? (v % base).toString().padStart(decimals, "0").replace(/0+$/, "") : "";
  if (frac.length < minFraction) frac = frac.padEnd(Math.min(minFraction, decimals), "0");
  return `${sign}${whole}${frac ? `.${frac}` : ""}`;
}
