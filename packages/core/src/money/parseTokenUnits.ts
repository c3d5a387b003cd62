const HUMAN = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/;

/**
 * A human token amount → base units, exactly (bigint string math, never floats): "1.25" with 6 decimals → 1250000n.
 * Digits with an optional fractional part of at most `decimals` digits ("1", "1.", ".5", "0.000001"); signs,
 * exponents, separators and inner spaces are refused (surrounding spaces are trimmed). Throws a RangeError with a
 * readable message. Shared by the CLI (`--amount`) and the MCP `pay` tool.
 */
export function parseTokenUnits(text: string, decimals = 6): bigint {
  const s = text.trim();
  const m = HUMAN.exec(s);
  if (!m) throw new RangeError(`"${text}" is not an amount: use digits with an optional decimal point, like 1.25`);
  const whole = m[1] ?? "0";
  const frac = m[2] ?? m[3] ?? "";
  if (frac.length > decimals) throw new RangeError(`"${text}" has more than ${decimals} decimal places (the token has ${decimals} decimals)`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
}
