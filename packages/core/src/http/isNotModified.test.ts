import { describe, expect, it } from "vitest";
import { etagOf } from "./etagOf.ts";
import { isNotModified } from "./isNotModified.ts";

const tag = etagOf('{"a":1}');

describe("etagOf", () => {
  it("is a strong, quoted tag of the bytes: equal bytes equal tags, other bytes another tag", () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(etagOf('{"a":1}')).toBe(tag);
    expect(etagOf(Buffer.from('{"a":1}'))).toBe(tag);
    expect(etagOf('{"a":2}')).not.toBe(tag);
  });
});

describe("isNotModified", () => {
  it("matches the tag itself, its weak form, a list holding it, and *", () => {
    expect(isNotModified({ "if-none-match": tag }, tag)).toBe(true);
    expect(isNotModified({ "if-none-match": `W/${tag}` }, tag)).toBe(true);
    expect(isNotModified({ "if-none-match": `"other", ${tag}` }, tag)).toBe(true);
    expect(isNotModified({ "if-none-match": `"other",W/${tag}` }, tag)).toBe(true);
    expect(isNotModified({ "if-none-match": "*" }, tag)).toBe(true);
  });
  it("ignores the request's Cache-Control (fetch() adds no-cache to every conditional request)", () => {
    expect(isNotModified({ "if-none-match": tag, "cache-control": "no-cache", pragma: "no-cache" }, tag)).toBe(true);
  });
  it("does not match other tags, no condition, or If-Modified-Since alone", () => {
    expect(isNotModified({ "if-none-match": '"other"' }, tag)).toBe(false);
    expect(isNotModified({ "if-none-match": tag.slice(0, -2) + '"' }, tag)).toBe(false);
    expect(isNotModified({}, tag)).toBe(false);
    expect(isNotModified({ "if-modified-since": new Date().toUTCString() }, tag)).toBe(false);
    expect(isNotModified({ "if-none-match": "" }, tag)).toBe(false);
  });
});
