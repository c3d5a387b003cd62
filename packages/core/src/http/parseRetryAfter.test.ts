import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./parseRetryAfter.ts";

const now = new Date("2026-11-22T06:00:00Z");
describe("parseRetryAfter", () => {
  it("reads delta seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("Sun, 22 Nov 2026 06:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 05:00:00 GMT", now)).toBe(0);
  });
  it("reads the obsolete RFC 850 and asctime forms, both in GMT whatever the local zone", () => {
    expect(parseRetryAfter("Sunday, 22-Nov-26 06:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("Sun Nov 22 06:05:00 2026", now)).toBe(300_000);
    expect(parseRetryAfter("Sun Nov  1 06:00:00 2026", now)).toBe(0);
    expect(parseRetryAfter("Mon Nov 23 06:00:00 2026", now)).toBe(24 * 3600_000);
  });
  it("ignores junk and caps absurd values at a week", () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter("", now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    expect(parseRetryAfter("1.5", now)).toBeNull();
    expect(parseRetryAfter("999999999", now)).toBe(7 * 24 * 3600 * 1000);
    expect(parseRetryAfter("Sun, 22 Nov 2036 06:00:00 GMT", now)).toBe(7 * 24 * 3600 * 1000);
  });
  it("refuses what Date.parse would guess at: words with a number, other zones, ISO, impossible days", () => {
    expect(parseRetryAfter("soon 2", now)).toBeNull();
    expect(parseRetryAfter("May 5", now)).toBeNull();
    expect(parseRetryAfter("Sun, 22 Nov 2026 06:05:00 +0100", now)).toBeNull();
    expect(parseRetryAfter("2026-11-22T06:05:00Z", now)).toBeNull();
    expect(parseRetryAfter("Tue, 31 Feb 2026 06:05:00 GMT", now)).toBeNull();
    expect(parseRetryAfter("Sun, 22 Nov 2026 25:05:00 GMT", now)).toBeNull();
  });
  it("trims whitespace and reads only a whole number of seconds", () => {
    expect(parseRetryAfter(" 30 ", now)).toBe(30_000);
    expect(parseRetryAfter("30abc", now)).toBeNull();
  });
});
