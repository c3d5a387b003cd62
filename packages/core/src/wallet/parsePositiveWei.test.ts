import { describe, expect, it } from "vitest";
import { parsePositiveWei } from "./parsePositiveWei.ts";

describe("parsePositiveWei", () => {
  it.each([
    ["1", 1n],
    ["1250000", 1_250_000n],
    [(2n ** 256n - 1n).toString(), 2n ** 256n - 1n],
  ] as const)("%s", (s, v) => expect(parsePositiveWei(s)).toBe(v));
  it.each([["0"], ["-1"], ["01"], ["1.5"], ["1e6"], [" 1"], ["0x10"], [""], [(2n ** 256n).toString()], ["9".repeat(79)], [1], [null], [undefined], [{}]])(
    "refuses %j",
    (v) => expect(parsePositiveWei(v)).toBeNull(),
  );
});
