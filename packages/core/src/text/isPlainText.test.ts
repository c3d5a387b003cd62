import { describe, expect, it } from "vitest";
import { isPlainText } from "./isPlainText.ts";

describe("isPlainText", () => {
  it.each([
    ["", "empty"],
    ["my hook", "ASCII"],
    ["Zürich café ☕ 😀", "accents, symbols and a surrogate pair"],
    ["مرحبا \u200e(LRM) שלום", "right-to-left text with a left-to-right mark"],
    ["\u00a0non-breaking\u00a0space", "U+00A0 (just after C1)"],
    ["tab-free ~ \u007e", "U+007E (just before DEL)"],
    ["\u202f\u2065\u206a", "neighbours of the forbidden bidi ranges"],
    ["\u2027", "U+2027 (just before the separators)"],
    ["\ud800\udc00\udbff\udfff", "the first and the last surrogate pairs"],
  ])("accepts %j (%s)", (value) => {
    expect(isPlainText(value)).toBe(true);
  });

  it.each([
    ["\u0000", "NUL"],
    ["ab\u0000", "NUL at the end"],
    ["\u0001", "U+0001"],
    ["a\tb", "tab"],
    ["a\nb", "newline"],
    ["a\rb", "carriage return"],
    ["\u001f", "U+001F (last C0)"],
    ["\u007f", "DEL"],
    ["\u0080", "U+0080 (first C1)"],
    ["\u0085", "NEL"],
    ["\u009f", "U+009F (last C1)"],
    ["a\u2028b", "line separator"],
    ["a\u2029b", "paragraph separator"],
    ["\u202a", "LRE (first embedding control)"],
    ["evil\u202egnp.exe", "RLO (right-to-left override)"],
    ["\u2066", "LRI (first isolate)"],
    ["\u2069", "PDI (last isolate)"],
    ["ab\ud800", "lone high surrogate"],
    ["\udc00ab", "lone low surrogate"],
    ["\ude00\ud83d", "a surrogate pair in the wrong order"],
  ])("refuses %j (%s)", (value) => {
    expect(isPlainText(value)).toBe(false);
  });
});
