import { describe, expect, it } from "vitest";
import { formatDeviceCode } from "./formatDeviceCode.ts";
import { normalizeDeviceCode } from "./normalizeDeviceCode.ts";

describe("formatDeviceCode", () => {
  it("shows a normalized code as two groups of four with a dash", () => {
    expect(formatDeviceCode("BCDFGHJK")).toBe("BCDF-GHJK");
  });
  it("round-trips through normalizeDeviceCode", () => {
    expect(normalizeDeviceCode(formatDeviceCode("XZBCDFGH"))).toBe("XZBCDFGH");
  });
});
