/**
 * Characters a person's text (a label, a display name) never needs and that break or disguise it: every Unicode
 * control character (C0 U+0000–U+001F including NUL, which PostgreSQL cannot store in text; DEL; C1 U+0080–U+009F),
 * the line and paragraph separators (U+2028, U+2029), and the bidirectional embedding, override and isolate controls
 * (U+202A–U+202E, U+2066–U+2069) that make a label display as something else.
 */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `value` is plain text a person could have typed: well-formed UTF-16 (no lone surrogate, which PostgreSQL
 * would store as U+FFFD) and none of the FORBIDDEN characters. Length and trimming are the caller's rules.
 */
export function isPlainText(value: string): boolean {
  return !FORBIDDEN.test(value) && !LONE_SURROGATE.test(value);
}
