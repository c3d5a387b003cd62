/** Values a COPY text-format field can carry: strings (escaped), numbers, bigints, or null (`\N`). */
export type CopyValue = string | number | bigint | null | undefined;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One field of PostgreSQL's COPY text format: backslash, tab, newline and carriage return escaped, null as `\N`. */
export function copyField(value: CopyValue): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value !== "string") return String(value);
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
}

/**
 * Rows in COPY text format, produced lazily in chunks of about `chunkChars` characters (whole lines only): the
 * text is generated while PostgreSQL parses the previous chunk, and each chunk dies young (no 50 MB strings
 * promoted to the old generation). `row(i)` returns the already-escaped line for item i, without the newline.
 */
export function* toCopyText(count: number, row: (i: number) => string, chunkChars = 1 << 16): Generator<string, void, undefined> {
  let parts: string[] = [];
  let size = 0;
  for (let i = 0; i < count; i++) {
    const line = row(i);
    parts.push(line);
    size += line.length + 1;
    if (size >= chunkChars) {
      yield parts.join("\n") + "\n";
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield parts.join("\n") + "\n";
}
