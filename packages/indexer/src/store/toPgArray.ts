const BARE = /^[0-9A-Za-z_.:-]+$/;

/**
 * A PostgreSQL array literal for a one-dimensional array of strings, numbers or nulls, built directly
 * (pg's generic array serializer escapes every element with regexes: ~5× slower on the bulk path).
 * Elements that are plain tokens (hex, decimals, ids) go bare; anything else is double-quoted with
 * `"` and `\` escaped, so labels with commas, quotes or braces round-trip exactly.
 */
export function toPgArray(values: readonly (string | number | null)[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = "NULL";
    else if (typeof v === "number") parts[i] = String(v);
    else if (BARE.test(v) && v.toUpperCase() !== "NULL") parts[i] = v;
    else parts[i] = `"${v.replace(/[\\"]/g, "\\$&")}"`;
  }
  return `{${parts.join(",")}}`;
}
