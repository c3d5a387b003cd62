import { describe, expect, it } from "vitest";
import { reportPairingStatus } from "./reportPairingStatus.ts";

const now = new Date("2026-11-22T10:00:00Z");
const later = new Date(now.getTime() + 1000);
const earlier = new Date(now.getTime() - 1000);

describe("reportPairingStatus", () => {
  it("pending until expires_at, then expired", () => {
    expect(reportPairingStatus({ status: "pending", expiresAt: later }, now)).toBe("pending");
    expect(reportPairingStatus({ status: "pending", expiresAt: now }, now)).toBe("expired");
    expect(reportPairingStatus({ status: "pending", expiresAt: earlier }, now)).toBe("expired");
  });
  it("approved and claimed do not expire with the code", () => {
    expect(reportPairingStatus({ status: "approved", expiresAt: earlier }, now)).toBe("approved");
    expect(reportPairingStatus({ status: "claimed", expiresAt: earlier }, now)).toBe("claimed");
  });
});
