import { describe, expect, it } from "vitest";
import { formatDeviceCode } from "./formatDeviceCode.ts";
import { normalizeDeviceCode } from "./normalizeDeviceCode.ts";

describe("normalizeDeviceCode / formatDeviceCode", () => {
  it.each([
    ["BCDF-GHJK", "BCDFGHJK"],
    ["bcdf-ghjk", "BCDFGHJK"],
    [" bcdf ghjk ", "BCDFGHJK"],
    ["BCDFGHJK", "BCDFGHJK"],
    ["B-C-D-F-G-H-J-K", "BCDFGHJK"],
  ])("%j → %j", (input, out) => expect(normalizeDeviceCode(input)).toBe(out));
  it.each([["BCDF-GHJ"], ["BCDF-GHJKL"], ["ABCD-EFGH"], ["BCDF-GHJ0"], [""], [12345678], [null], [undefined], ["X".repeat(40)], ["BCDF_GHJK"]])(
    "refuses %j",
    (input) => expect(normalizeDeviceCode(input)).toBeNull(),
  );
  it("formats as XXXX-XXXX", () => expect(formatDeviceCode("BCDFGHJK")).toBe("BCDF-GHJK"));
  it("refuses inputs longer than 32 characters before normalizing them", () => {
    expect(normalizeDeviceCode(`BCDF-GHJK${" ".repeat(23)}`)).toBe("BCDFGHJK"); // 32 characters
    expect(normalizeDeviceCode(`BCDF-GHJK${" ".repeat(24)}`)).toBeNull(); // 33
  });
});
