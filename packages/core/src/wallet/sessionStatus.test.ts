import { describe, expect, it } from "vitest";
import { sessionStatus } from "./sessionStatus.ts";

const now = new Date("2026-11-22T10:00:00Z");
const future = new Date(now.getTime() + 60_000);
const past = new Date(now.getTime() - 60_000);

describe("sessionStatus", () => {
  it.each([
    [{ expiresAt: future, revokedAt: null, onChainAuthorizedAt: past }, "active"],
    [{ expiresAt: future, revokedAt: null, onChainAuthorizedAt: null }, "not_authorized"],
    [{ expiresAt: past, revokedAt: null, onChainAuthorizedAt: past }, "expired"],
    [{ expiresAt: now, revokedAt: null, onChainAuthorizedAt: past }, "expired"],
    [{ expiresAt: past, revokedAt: null, onChainAuthorizedAt: null }, "expired"],
    [{ expiresAt: future, revokedAt: past, onChainAuthorizedAt: past }, "revoked"],
    [{ expiresAt: past, revokedAt: past, onChainAuthorizedAt: null }, "revoked"],
  ] as const)("%j → %s", (s, expected) => expect(sessionStatus(s, now)).toBe(expected));
});
