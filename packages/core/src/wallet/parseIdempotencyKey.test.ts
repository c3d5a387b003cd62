import { describe, expect, it } from "vitest";
import { parseIdempotencyKey } from "./parseIdempotencyKey.ts";

describe("parseIdempotencyKey", () => {
  it("no header: no key", () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ ok: true, key: null });
  });
  it.each(["6f1c2a4e-3b1d-4c5e-9f00-1234567890ab", "a", "invoice-42:attempt/1+x=~_.", "!".repeat(255), "~"])("accepts %s", (key) => {
    expect(parseIdempotencyKey(key)).toEqual({ ok: true, key });
  });
  it.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["a space", "two words"],
    ["a repeated header joined by Node", "abc, abc"],
    ["a NUL byte", "abc\u0000"],
    ["a tab", "abc\tdef"],
    ["DEL", "abc\u007f"],
    ["non-ASCII", "clé"],
    ["a lone surrogate", "a\ud800"],
  ])("refuses %s", (_name, key) => {
    const r = parseIdempotencyKey(key);
    expect(r.ok).toBe(false);
  });
  it("refuses an array of values", () => {
    expect(parseIdempotencyKey(["a", "b"]).ok).toBe(false);
  });

  it("tells the caller the rule in its refusal", () => {
    expect(parseIdempotencyKey("two words")).toEqual({ ok: false, reason: "Idempotency-Key must be 1–255 visible ASCII characters (no spaces), sent once" });
  });
});
