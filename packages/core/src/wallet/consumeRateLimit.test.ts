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
});
