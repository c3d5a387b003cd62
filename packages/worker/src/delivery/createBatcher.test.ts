import { describe, expect, it } from "vitest";
import { createBatcher } from "./createBatcher.ts";

describe("createBatcher", () => {
  it("coalesces calls made together, keeps each caller's result, and queues behind the batch in flight", async () => {
    const batches: number[][] = [];
    const double = createBatcher<number, number>(async (items) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 10));
      return items.map((i) => i * 2);
    });
    const first = await Promise.all([1, 2, 3].map(double));
    expect(first).toEqual([2, 4, 6]);
    const a = double(4);
    await new Promise((r) => setTimeout(r, 2)); // 4 is in flight now
    const rest = [5, 6, 7].map(double);
    expect(await Promise.all([a, ...rest])).toEqual([8, 10, 12, 14]);
    expect(batches).toEqual([[1, 2, 3], [4], [5, 6, 7]]);
  });
  it("fails every caller of a failed batch, and recovers", async () => {
    let fail = true;
    const f = createBatcher<number, number>(
      async (items) => {
        if (fail) throw new Error("db down");
        return items;
      },
      { windowMs: 2, maxBatch: 2 },
    );
    const calls = [1, 2, 3].map((n) => f(n).catch((e: Error) => e.message));
    expect(await Promise.all(calls)).toEqual(["db down", "db down", "db down"]);
    fail = false;
    expect(await f(9)).toBe(9);
  });
});
