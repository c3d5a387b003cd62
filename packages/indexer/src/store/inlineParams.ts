import { escapeLiteral } from "pg";

/**
 * `sql` with each placeholder `$n` replaced by `params[n - 1]` as a quoted literal (NULL for null), for statements
 * sent in a multi-statement script, which cannot carry parameters. Placeholders are matched whole (`$12` is never
 * `$1` followed by `2`); the SQL must not hold dollar-quoted strings or other `$` text.
 */
export function inlineParams(sql: string, params: readonly (string | null)[]): string {
  return sql.replace(/\$(\d+)/g, (placeholder, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) throw new RangeError(`${placeholder} has no parameter (${params.length} given)`);
    const value = params[i];
    return value === null || value === undefined ? "NULL" : escapeLiteral(value);
  });
}
