import { describe, expect, it } from "vitest";
import { checkSignCounter } from "./checkSignCounter.ts";

describe("checkSignCounter", () => {
  it("accepts an increasing counter and an always-zero authenticator", () => {
    expect(checkSignCounter(0n, 0n)).toBe(true);
    expect(checkSignCounter(0n, 1n)).toBe(true);
    expect(checkSignCounter(5n, 6n)).toBe(true);
  });
  it("refuses a regression or a repeat", () => {
    expect(checkSignCounter(5n, 5n)).toBe(false);
    expect(checkSignCounter(5n, 4n)).toBe(false);
    expect(checkSignCounter(5n, 0n)).toBe(false);
  });
});
