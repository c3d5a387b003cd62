import { describe, expect, it } from "vitest";
import { nextChunkSize } from "./nextChunkSize.ts";

const policy = { min: 1, max: 10_000, targetMs: 1_000, maxLogs: 20_000 };

describe("nextChunkSize", () => {
  it("halves on a range/size refusal, never below min", () => {
    expect(nextChunkSize(1_000, { type: "too_large" }, policy)).toBe(500);
    expect(nextChunkSize(1, { type: "too_large" }, policy)).toBe(1);
    expect(nextChunkSize(3, { type: "too_large" }, policy)).toBe(1);
  });
  it("doubles when fast and small, never above max", () => {
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 100, logCount: 10 }, policy)).toBe(2_000);
    expect(nextChunkSize(8_000, { type: "ok", elapsedMs: 100, logCount: 10 }, policy)).toBe(10_000);
  });
  it("halves when slow or when the response is big", () => {
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 1_500, logCount: 10 }, policy)).toBe(500);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 100, logCount: 30_000 }, policy)).toBe(500);
  });
  it("keeps the size in the comfortable band", () => {
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 700, logCount: 10 }, policy)).toBe(1_000);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 100, logCount: 15_000 }, policy)).toBe(1_000);
  });

  it("treats exactly the target time and exactly maxLogs as not slow/big, and exactly half of them as not fast/small", () => {
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 1_000, logCount: 10 }, policy)).toBe(1_000);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 100, logCount: 20_000 }, policy)).toBe(1_000);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 500, logCount: 10 }, policy)).toBe(1_000);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 100, logCount: 10_000 }, policy)).toBe(1_000);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 499, logCount: 9_999 }, policy)).toBe(2_000);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 1_001, logCount: 10 }, policy)).toBe(500);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 100, logCount: 20_001 }, policy)).toBe(500);
  });
  it("rounds down to whole blocks and clamps into [min, max] on every path", () => {
    const narrow = { min: 100, max: 400, targetMs: 1_000, maxLogs: 20_000 };
    expect(nextChunkSize(1_001, { type: "too_large" }, policy)).toBe(500);
    expect(nextChunkSize(301, { type: "ok", elapsedMs: 1_500, logCount: 10 }, policy)).toBe(150);
    expect(nextChunkSize(150, { type: "too_large" }, narrow)).toBe(100);
    expect(nextChunkSize(150, { type: "ok", elapsedMs: 1_500, logCount: 10 }, narrow)).toBe(100);
    expect(nextChunkSize(300, { type: "ok", elapsedMs: 100, logCount: 10 }, narrow)).toBe(400);
    expect(nextChunkSize(1_000, { type: "ok", elapsedMs: 700, logCount: 10 }, narrow)).toBe(400);
    expect(nextChunkSize(50, { type: "ok", elapsedMs: 700, logCount: 10 }, narrow)).toBe(100);
    expect(nextChunkSize(250.7, { type: "ok", elapsedMs: 700, logCount: 10 }, narrow)).toBe(250);
  });
});
