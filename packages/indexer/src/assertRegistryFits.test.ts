import { describe, expect, it } from "vitest";
import { assertRegistryFits } from "./assertRegistryFits.ts";

describe("assertRegistryFits", () => {
  it("refuses v0.2 without a token allowlist, accepts it with one, and v0.1 either way", () => {
    expect(() => assertRegistryFits("v0.2", 0)).toThrow(/v0.2 counts only allowlisted tokens.*METHODOLOGY_VERSION=v0.1/);
    expect(() => assertRegistryFits("v0.2", 1)).not.toThrow();
    expect(() => assertRegistryFits("v0.1", 0)).not.toThrow();
  });
});
