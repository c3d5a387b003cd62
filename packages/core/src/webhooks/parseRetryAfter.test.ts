import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./parseRetryAfter.ts";

const now = new Date("2026-11-22T06:00:00Z");
describe("parseRetryAfter", () => {
  it("reads delta seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 06:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 05:00:00 GMT", now)).toBe(0);
  });
  it("ignores junk and caps absurd values at a week", () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    expect(parseRetryAfter("999999999", now)).toBe(7 * 24 * 3600 * 1000);
  });
  it("trims whitespace and reads only a whole number of seconds", () => {
    expect(parseRetryAfter(" 30 ", now)).toBe(30_000);
    expect(parseRetryAfter("30abc", now)).toBeNull();
  });
});
