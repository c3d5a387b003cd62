import { describe, expect, it } from "vitest";
import { formatCountdown, normalizePairingCode } from "./pairingCode.ts";

describe("normalizePairingCode", () => {
  it("accepts the RFC 8628 consonant alphabet in any case, with or without separators", () => {
    expect(normalizePairingCode("BCDF-GHJK")).toBe("BCDF-GHJK");
    expect(normalizePairingCode("bcdfghjk")).toBe("BCDF-GHJK");
    expect(normalizePairingCode(" wxzb - qrst ")).toBe("WXZB-QRST");
  });
  it("refuses anything else", () => {
    for (const bad of [null, undefined, "", "BCDF-GHJ", "BCDF-GHJKL", "ABCD-EFGH", "BCDF-GHJ1", "not a code", "BCDF_GHJK"])
      expect(normalizePairingCode(bad), String(bad)).toBeNull();
  });
});

describe("formatCountdown", () => {
  it("shows minutes and seconds, never negative", () => {
    expect(formatCountdown(245)).toBe("4:05");
    expect(formatCountdown(59.9)).toBe("0:59");
    expect(formatCountdown(-3)).toBe("0:00");
  });
});
