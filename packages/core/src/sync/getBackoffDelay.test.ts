import { describe, expect, it } from "vitest";
import { getBackoffDelay } from "./getBackoffDelay.ts";

describe("getBackoffDelay", () => {
  it("doubles per attempt within the jitter band", () => {
    expect(getBackoffDelay(1, { baseMs: 100, random: 0 })).toBe(50);
    expect(getBackoffDelay(1, { baseMs: 100, random: 1 })).toBe(100);
    expect(getBackoffDelay(4, { baseMs: 100, random: 1 })).toBe(800);
  });
  it("caps at maxMs even for huge attempt numbers", () => {
    expect(getBackoffDelay(1_000, { baseMs: 100, maxMs: 5_000, random: 1 })).toBe(5_000);
    expect(getBackoffDelay(1_000, { baseMs: 100, maxMs: 5_000, random: 0 })).toBe(2_500);
  });
});
