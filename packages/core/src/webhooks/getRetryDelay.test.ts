import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, getRetryDelay } from "./getRetryDelay.ts";

describe("getRetryDelay", () => {
  it("follows the schedule with ±20 % jitter", () => {
    const minutes = [0.5, 2, 10, 30, 120, 360, 720];
    minutes.forEach((m, i) => {
      expect(getRetryDelay(i + 1, { random: 0.5 })).toBe(m * 60_000);
      expect(getRetryDelay(i + 1, { random: 0 })).toBe(Math.round(m * 60_000 * 0.8));
      expect(getRetryDelay(i + 1, { random: 1 })).toBe(Math.round(m * 60_000 * 1.2));
    });
  });
  it("gives up after the 8th attempt", () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(getRetryDelay(8, { random: 0.5 })).toBeNull();
  });
  it("honours a Retry-After only when it asks for longer", () => {
    expect(getRetryDelay(1, { random: 0.5, retryAfterMs: 90_000 })).toBe(90_000);
    expect(getRetryDelay(1, { random: 0.5, retryAfterMs: 5_000 })).toBe(30_000);
  });
  it("rejects nonsense attempts", () => {
    expect(() => getRetryDelay(0, { random: 0 })).toThrow(RangeError);
    expect(() => getRetryDelay(1.5, { random: 0 })).toThrow("attempt must be a positive integer, got 1.5");
  });
  it("keeps the scheduled delay when Retry-After asks for exactly as long", () => {
    expect(getRetryDelay(1, { random: 0.5, retryAfterMs: 30_000 })).toBe(30_000);
    expect(getRetryDelay(1, { random: 0.5, retryAfterMs: 30_001 })).toBe(30_001);
  });
});
