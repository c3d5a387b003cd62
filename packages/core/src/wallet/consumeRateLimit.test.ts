import { describe, expect, it } from "vitest";
import { consumeRateLimit, type RateWindow } from "./consumeRateLimit.ts";

describe("consumeRateLimit", () => {
  it("allows `limit` hits per window, then says when to retry", () => {
    let w: RateWindow | undefined;
    for (let i = 0; i < 3; i++) {
      const d = consumeRateLimit(w, 1000 + i, 3, 60_000);
      expect(d.allowed).toBe(true);
      w = d.window;
    }
    const refused = consumeRateLimit(w, 31_000, 3, 60_000);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 30 });
    expect(consumeRateLimit(refused.window, 61_000, 3, 60_000)).toMatchObject({ allowed: true, window: { start: 61_000, count: 1 } });
  });
  it("refuses within the window at real epoch times and opens a new window once it has passed", () => {
    const t0 = Date.UTC(2026, 10, 25, 3, 0, 0); // ~1.8e12 ms
    let w: RateWindow | undefined;
    for (let i = 0; i < 5; i++) {
      const d = consumeRateLimit(w, t0 + i * 1000, 5, 60_000);
      expect(d).toMatchObject({ allowed: true, retryAfterSeconds: 0, window: { start: t0, count: i + 1 } });
      w = d.window;
    }
    const refused = consumeRateLimit(w, t0 + 59_999, 5, 60_000);
    expect(refused).toEqual({ allowed: false, window: { start: t0, count: 5 }, retryAfterSeconds: 1 });
    expect(consumeRateLimit(w, t0 + 10_500, 5, 60_000).retryAfterSeconds).toBe(50); // 49.5 s rounded up
    // exactly one window later the old count no longer applies
    expect(consumeRateLimit(refused.window, t0 + 60_000, 5, 60_000)).toEqual({
      allowed: true, window: { start: t0 + 60_000, count: 1 }, retryAfterSeconds: 0,
    });
  });
  it("starts counting on the first hit, and a limit of 1 refuses the second", () => {
    const now = 1_764_040_000_000;
    const first = consumeRateLimit(undefined, now, 1, 10_000);
    expect(first).toEqual({ allowed: true, window: { start: now, count: 1 }, retryAfterSeconds: 0 });
    expect(consumeRateLimit(first.window, now, 1, 10_000)).toEqual({ allowed: false, window: { start: now, count: 1 }, retryAfterSeconds: 10 });
    expect(consumeRateLimit(undefined, now, 0, 10_000).allowed).toBe(false);
  });
});
