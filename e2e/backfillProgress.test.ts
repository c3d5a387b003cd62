import { describe, expect, it } from "vitest";
import { formatBackfillProgress, formatEta } from "../scripts/backfillProgress.ts";

// npm start's terminal line while the indexer backfills (the TTY run itself: test/start.tty.test.ts).
describe("formatBackfillProgress", () => {
  const first = { block: 1_000, head: 101_000, logs: 0, at: 1_700_000_000_000 };

  it("shows blocks done / head, logs/s and an ETA from the rates since the first sample", () => {
    // 10 s later: 20,000 blocks and 50,000 logs done → 2,000 blocks/s, 5,000 logs/s; 80,000 blocks left → 40 s
    const line = formatBackfillProgress(first, { block: 21_000, head: 101_000, logs: 50_000 }, first.at + 10_000);
    expect(line).toBe("  indexer backfill: block 21,000 / 101,000 · 5,000 logs/s · ETA 40 s");
  });

  it("follows a moving head and a slow rate into minutes and hours", () => {
    expect(formatBackfillProgress(first, { block: 1_100, head: 121_000, logs: 7 }, first.at + 100_000)).toBe(
      "  indexer backfill: block 1,100 / 121,000 · 0 logs/s · ETA 33 h 18 min",
    );
    expect(formatBackfillProgress(first, { block: 11_000, head: 101_000, logs: 0 }, first.at + 60_000)).toMatch(/ETA 9 min 0 s$/);
  });

  it("says … until a second has passed or while no block was done", () => {
    expect(formatBackfillProgress(first, { block: 1_000, head: 101_000, logs: 0 }, first.at)).toBe(
      "  indexer backfill: block 1,000 / 101,000 · … logs/s · ETA …",
    );
    expect(formatBackfillProgress(first, { block: 1_000, head: 101_000, logs: 0 }, first.at + 5_000)).toMatch(/0 logs\/s · ETA …$/);
  });

  it("is null once the checkpoint is within 5 blocks of the head", () => {
    expect(formatBackfillProgress(first, { block: 100_995, head: 101_000, logs: 9 }, first.at + 5_000)).toBeNull();
    expect(formatBackfillProgress(first, { block: 100_994, head: 101_000, logs: 9 }, first.at + 5_000)).not.toBeNull();
  });
});

describe("formatEta", () => {
  it("writes seconds, minutes and hours", () => {
    expect(formatEta(0.2)).toBe("1 s");
    expect(formatEta(59)).toBe("59 s");
    expect(formatEta(200)).toBe("3 min 20 s");
    expect(formatEta(7_380)).toBe("2 h 3 min");
  });
});
