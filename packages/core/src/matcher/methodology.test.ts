import { describe, expect, it } from "vitest";
import { UnknownMethodologyError } from "../errors.ts";
import { assertMethodologyVersion, CURRENT_METHODOLOGY_VERSION, DEFAULT_METHODOLOGY_VERSION, METHODOLOGY_VERSIONS } from "./methodology.ts";

// The versions are the literal names docs/methodology.md and the stored rows use (events.methodology_version).
describe("methodology versions", () => {
  it("library calls default to v0.1 (reproducible rows for existing callers); a new install defaults to v0.3", () => {
    expect(METHODOLOGY_VERSIONS).toEqual(["v0.1", "v0.2", "v0.3"]);
    expect(CURRENT_METHODOLOGY_VERSION).toBe("v0.1");
    expect(DEFAULT_METHODOLOGY_VERSION).toBe("v0.3");
  });
  it("accepts exactly the known versions", () => {
    expect(() => assertMethodologyVersion("v0.1")).not.toThrow();
    expect(() => assertMethodologyVersion("v0.2")).not.toThrow();
    expect(() => assertMethodologyVersion("v0.3")).not.toThrow();
    for (const v of ["", "v0.4", "V0.1", "0.1"]) expect(() => assertMethodologyVersion(v), v).toThrow(UnknownMethodologyError);
  });
});
