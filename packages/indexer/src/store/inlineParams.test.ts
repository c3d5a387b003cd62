import { describe, expect, it } from "vitest";
import { inlineParams } from "./inlineParams.ts";

describe("inlineParams", () => {
  it("replaces whole placeholders with quoted literals, NULL for null", () => {
    const params: (string | null)[] = Array.from({ length: 12 }, (_, i) => `v${i + 1}`);
    params[2] = null;
    expect(inlineParams("SELECT $1::text, $12::int[], $3, $10", params)).toBe("SELECT 'v1'::text, 'v12'::int[], NULL, 'v10'");
  });

  it("escapes quotes and backslashes so a value cannot end its literal", () => {
    expect(inlineParams("SELECT $1", ["it's"])).toBe("SELECT 'it''s'");
    // With a backslash, pg's escapeLiteral writes an E'' literal (after a space) with the backslash doubled.
    expect(inlineParams("SELECT $1", [String.raw`a\b'`])).toBe(String.raw`SELECT  E'a\\b'''`);
  });

  it("refuses a placeholder without a parameter", () => {
    expect(() => inlineParams("SELECT $2", ["a"])).toThrow(RangeError);
    expect(() => inlineParams("SELECT $0", ["a"])).toThrow(RangeError);
  });
});
