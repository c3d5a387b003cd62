// Hostile inputs for the no-500 fuzz test (test/invalidInput.test.ts): every string, JSON value and raw body an
// attacker or a broken client may send, named so a failure says which one did it.

const b64u = (s: string) => Buffer.from(s).toString("base64url");

/** Strings: control characters, lone surrogates, huge, numbers that overflow, cursors that were never issued. */
export const BAD_STRINGS: readonly (readonly [name: string, value: string])[] = [
  ["NUL", "\u0000"],
  ["NUL inside", "ab\u0000cd"],
  ["C0 controls", "ab\u0001\u0008\u001b\u001fcd"],
  ["newline", "ab\ncd"],
  ["DEL", "ab\u007f"],
  ["C1 controls", "ab\u0085\u009f"],
  ["line separator", "ab\u2028cd"],
  ["bidi override", "ab\u202ecd"],
  ["lone high surrogate", "ab\ud800"],
  ["lone low surrogate", "\udc00ab"],
  ["empty", ""],
  ["blank", "   "],
  ["huge", "x".repeat(20_000)],
  ["overflow integer", "9".repeat(80)],
  ["int64 overflow", "9223372036854775808"],
  ["negative", "-1"],
  ["exponent", "1e3"],
  ["hex", "0x10"],
  ["NaN", "NaN"],
  ["percent", "%"],
  ["bad cursor", "%%%"],
  ["forged cursor", b64u(JSON.stringify({ id: "1" }))],
  ["cursor of the wrong shape", b64u(JSON.stringify(["2020-01-01T00:00:00.000Z", "x\u0000"]))],
  ["cursor with a huge number", b64u(JSON.stringify([1e308, 99999999999999999999]))],
  ["SQL", "'; DROP TABLE entities; --"],
  ["LIKE wildcards", "%_\\%"],
  ["emoji", "😀😀"],
  ["address with NUL", `0x${"a".repeat(39)}\u0000`],
  ["uuid with NUL", "00000000-0000-0000-0000-00000000000\u0000"],
];

/** Marks a JSON value written verbatim into the body (numbers JSON.stringify cannot produce). */
export interface RawJson {
  raw: string;
}

/** JSON values: every bad string, wrong types, numbers that overflow or are not integers. */
export const BAD_VALUES: readonly (readonly [name: string, value: unknown])[] = [
  ...BAD_STRINGS,
  ["number", 1],
  ["negative number", -1],
  ["float", 1.5],
  ["unsafe integer", 2 ** 53 + 1],
  ["1e308", 1e308],
  ["number overflowing to Infinity", { raw: "1e400" } satisfies RawJson],
  ["integer beyond uint256", { raw: "9".repeat(90) } satisfies RawJson],
  ["negative zero", { raw: "-0" } satisfies RawJson],
  ["true", true],
  ["null", null],
  ["array", ["x"]],
  ["array of NUL", ["\u0000"]],
  ["empty object", {}],
  ["object", { a: 1 }],
  ["object with a NUL key", { "\u0000": "\u0000" }],
  // deep enough to exhaust the stack of anything recursive (String() of an array, a schema check, a converter)
  ["array nested 4,000 deep", { raw: `${"[".repeat(4_000)}${"]".repeat(4_000)}` } satisfies RawJson],
  ["object nested 4,000 deep", { raw: `${'{"a":'.repeat(4_000)}1${"}".repeat(4_000)}` } satisfies RawJson],
];

/** Bodies that are not the JSON object a handler expects (content type application/json unless said). */
export const BAD_BODIES: readonly (readonly [name: string, body: string | Buffer, contentType?: string])[] = [
  ["malformed JSON", "{"],
  ["array", "[]"],
  ["number", "1"],
  ["null", "null"],
  ["string", '"x"'],
  ["NUL", "\u0000"],
  ["invalid UTF-8", Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ["deep nesting", `${"[".repeat(20_000)}${"]".repeat(20_000)}`],
  ["duplicate keys", '{"a":1,"a":2}'],
  ["__proto__", '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'],
  ["larger than every limit", `{"x":"${"x".repeat(2_000_000)}"}`],
  ["text/plain", "{}", "text/plain"],
  ["form", "a=1", "application/x-www-form-urlencoded"],
];

/** A value for a URL (path segment or query): lone surrogates cannot be percent-encoded as UTF-8, so they are sent as their (invalid) UTF-8 bytes. */
export function urlEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value
      .replace(/[\ud800-\udfff]/g, "%ED%A0%80")
      .split("%ED%A0%80")
      .map(encodeURIComponent)
      .join("%ED%A0%80");
  }
}

/** JSON text of `value`, writing `{ raw }` markers verbatim. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => {
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as RawJson).raw === "string") {
      raws.push((v as RawJson).raw);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)]!);
}

/** Every leaf path of a JSON value (objects and arrays descended; the root is the empty path). */
export function leafPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
    return [prefix, ...entries.flatMap(([k, v]) => leafPaths(v, [...prefix, k]))];
  }
  return [prefix];
}

/** A deep copy of `value` with the value at `path` replaced (the root when the path is empty). */
export function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  value ??= typeof head === "number" ? [] : {}; // a path the sample lacks is created
  const copy = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  (copy as Record<string | number, unknown>)[head!] = replaceAt((value as Record<string | number, unknown>)[head!], rest, replacement);
  return copy;
}
