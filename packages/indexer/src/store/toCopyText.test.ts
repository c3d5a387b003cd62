import { describe, expect, it } from "vitest";
import { copyField, toCopyText } from "./toCopyText.ts";

describe("copyField", () => {
  it("escapes the characters COPY's text format treats specially and writes null as \\N", () => {
    expect(copyField("a\tb\nc\rd\\e")).toBe("a\\tb\\nc\\rd\\\\e");
    expect(copyField(null)).toBe("\\N");
    expect(copyField(undefined)).toBe("\\N");
    expect(copyField("")).toBe("");
    expect(copyField("\\N")).toBe("\\\\N"); // the two characters, not a null
    expect(copyField(12n)).toBe("12");
    expect(copyField(-3)).toBe("-3");
    expect(copyField('comma, "quote" {brace}')).toBe('comma, "quote" {brace}');
  });
});

describe("toCopyText", () => {
  it("splits whole lines into chunks and loses none", () => {
    const chunks = [...toCopyText(1000, (i) => `row-${i}`, 100)];
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(c.endsWith("\n")).toBe(true);
    const lines = chunks.join("").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toEqual(Array.from({ length: 1000 }, (_, i) => `row-${i}`));
  });
  it("gives no chunk for no rows", () => {
    expect([...toCopyText(0, () => "x")]).toEqual([]);
  });
});
