import { describe, expect, it } from "vitest";
import { MAX_CONSECUTIVE_FAILURES, transitionSubscription, type SubscriptionState } from "./subscriptionMachine.ts";

const now = new Date("2026-11-22T06:00:00Z");
const later = new Date(now.getTime() + 24 * 3600 * 1000);
const s = (status: SubscriptionState["status"], consecutiveFailures = 0): SubscriptionState => ({ status, consecutiveFailures });

describe("transitionSubscription", () => {
  it("verifies pending_verify → active with a matching, unexpired token", () => {
    expect(transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: true, now, verifyTokenExpiresAt: later })).toEqual(s("active"));
    expect(() => transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: false, now, verifyTokenExpiresAt: later })).toThrow(/does not match/);
    expect(() => transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: true, now: new Date(later.getTime() + 1), verifyTokenExpiresAt: later })).toThrow(/expired/);
  });
  it("pauses an active subscription (owner or a 410) and resumes it with zero failures", () => {
    expect(transitionSubscription(s("active", 3), { type: "pause" })).toEqual(s("paused", 3));
    expect(transitionSubscription(s("active", 2), { type: "receiver_gone" })).toEqual(s("paused", 2));
    expect(transitionSubscription(s("paused", 3), { type: "resume" })).toEqual(s("active", 0));
    expect(() => transitionSubscription(s("pending_verify"), { type: "pause" })).toThrow(/cannot pause/);
  });
  it(`disables after ${MAX_CONSECUTIVE_FAILURES} consecutive failures; a success resets the count`, () => {
    let state = s("active");
    for (let i = 1; i < MAX_CONSECUTIVE_FAILURES; i++) state = transitionSubscription(state, { type: "delivery_failed" });
    expect(state).toEqual(s("active", 4));
    expect(transitionSubscription(state, { type: "delivery_succeeded" })).toEqual(s("active", 0));
    state = transitionSubscription(state, { type: "delivery_failed" });
    expect(state).toEqual(s("disabled_by_failures", 5));
    expect(transitionSubscription(state, { type: "delivery_failed" })).toEqual(state); // dispatch stopped: no further counting
    expect(transitionSubscription(state, { type: "resume" })).toEqual(s("active", 0));
  });
  it("soft-deletes from any state; deleted is terminal", () => {
    for (const status of ["pending_verify", "active", "paused", "disabled_by_failures"] as const) {
      expect(transitionSubscription(s(status, 1), { type: "delete" }).status).toBe("deleted");
    }
    expect(() => transitionSubscription(s("deleted"), { type: "resume" })).toThrow(/deleted/);
  });
  it("refuses resume from pending_verify", () => {
    expect(() => transitionSubscription(s("pending_verify"), { type: "resume" })).toThrow(/cannot resume/);
  });
});
