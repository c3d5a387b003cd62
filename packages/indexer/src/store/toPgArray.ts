const BARE = /^[0-9A-Za-z_.:-]+$/;
const SAFE_LITERAL = /^[0-9A-Za-z_.:,-]*$/;

/**
 * A PostgreSQL array literal for a one-dimensional array of strings, numbers or nulls, built directly
 * (pg's generic array serializer escapes every element with regexes: several times slower on the bulk
 * path). Fast path: when the joined text only holds plain tokens (hex, decimals, ids) it is used as
 * is — one native regex pass over the whole string. Otherwise each element that needs it is
 * double-quoted with `"` and `\` escaped, so labels with commas, quotes or braces round-trip exactly.
 */
export function toPgArray(values: readonly (string | number | null)[]): string {
  let hasNull = false;
  for (let i = 0; i < values.length; i++)
    if (values[i] === null || values[i] === undefined) {
      hasNull = true;
      break;
    }
  if (!hasNull) {
    const joined = values.join(",");
    // "NULL" as a bare element would read as null: never take the fast path when one could be there.
    const noEmpty = values.length === 0 || (joined.length > 0 && joined[0] !== "," && !joined.endsWith(",") && !joined.includes(",,"));
    if (noEmpty && SAFE_LITERAL.test(joined) && !/(^|,)null(,|$)/i.test(joined)) return `{${joined}}`;
  }
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = "NULL";
    else if (v === "") parts[i] = '""';
    else if (typeof v === "number") parts[i] = String(v);
    else if (BARE.test(v) && v.toUpperCase() !== "NULL") parts[i] = v;
    else parts[i] = `"${v.replace(/[\\"]/g, "\\$&")}"`;
  }
  return `{${parts.join(",")}}`;
}
