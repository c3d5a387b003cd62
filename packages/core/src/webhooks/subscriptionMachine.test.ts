import { describe, expect, it } from "vitest";
import {
  MAX_CONSECUTIVE_FAILURES,
  SubscriptionTransitionError,
  VERIFY_TOKEN_TTL_MS,
  transitionSubscription,
  type SubscriptionState,
} from "./subscriptionMachine.ts";

const now = new Date("2026-11-22T06:00:00Z");
const later = new Date(now.getTime() + 24 * 3600 * 1000);
const s = (status: SubscriptionState["status"], consecutiveFailures = 0): SubscriptionState => ({ status, consecutiveFailures });

describe("transitionSubscription", () => {
  it("verifies pending_verify → active with a matching, unexpired token", () => {
    expect(transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: true, now, verifyTokenExpiresAt: later })).toEqual(s("active"));
    expect(() => transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: false, now, verifyTokenExpiresAt: later })).toThrow(
      /does not match/,
    );
    expect(() =>
      transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: true, now: new Date(later.getTime() + 1), verifyTokenExpiresAt: later }),
    ).toThrow(/expired/);
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
  it("keeps a verify token valid for exactly 24 hours (spec §8)", () => {
    expect(VERIFY_TOKEN_TTL_MS).toBe(86_400_000);
    const created = now;
    const expiresAt = new Date(created.getTime() + VERIFY_TOKEN_TTL_MS);
    const verify = (at: Date) => transitionSubscription(s("pending_verify"), { type: "verify", tokenMatches: true, now: at, verifyTokenExpiresAt: expiresAt });
    expect(verify(expiresAt)).toEqual(s("active"));
    expect(() => verify(new Date(expiresAt.getTime() + 1))).toThrow(SubscriptionTransitionError);
    expect(codeOf(() => verify(new Date(expiresAt.getTime() + 1)))).toBe("verify_token_expired");
  });
  it("gives each refusal its error code", () => {
    const verify = { type: "verify" as const, tokenMatches: true, now, verifyTokenExpiresAt: later };
    expect(codeOf(() => transitionSubscription(s("pending_verify"), { ...verify, tokenMatches: false }))).toBe("invalid_verify_token");
    // a wrong token is reported before an expired one: the caller learns nothing about a token it does not hold
    expect(codeOf(() => transitionSubscription(s("pending_verify"), { ...verify, tokenMatches: false, now: new Date(later.getTime() + 1) }))).toBe(
      "invalid_verify_token",
    );
    expect(codeOf(() => transitionSubscription(s("paused"), verify))).toBe("invalid_state");
    expect(codeOf(() => transitionSubscription(s("disabled_by_failures"), { type: "pause" }))).toBe("invalid_state");
    expect(codeOf(() => transitionSubscription(s("pending_verify"), { type: "resume" }))).toBe("invalid_state");
    for (const trigger of [verify, { type: "pause" as const }, { type: "delete" as const }, { type: "delivery_succeeded" as const }]) {
      expect(codeOf(() => transitionSubscription(s("deleted"), trigger))).toBe("not_found");
    }
  });
  it("verify does not re-activate a paused or disabled subscription; repeating verify, pause or resume changes nothing", () => {
    const verify = { type: "verify" as const, tokenMatches: true, now, verifyTokenExpiresAt: later };
    expect(() => transitionSubscription(s("paused", 2), verify)).toThrow(/cannot verify a paused/);
    expect(() => transitionSubscription(s("disabled_by_failures", 5), verify)).toThrow(/cannot verify a disabled_by_failures/);
    expect(transitionSubscription(s("active", 2), verify)).toEqual(s("active", 2));
    expect(transitionSubscription(s("active", 2), { ...verify, tokenMatches: false })).toEqual(s("active", 2));
    expect(transitionSubscription(s("paused", 2), { type: "pause" })).toEqual(s("paused", 2));
    expect(transitionSubscription(s("active", 2), { type: "resume" })).toEqual(s("active", 0));
    expect(transitionSubscription(s("disabled_by_failures", 5), { type: "resume" })).toEqual(s("active", 0));
  });
  it("an attempt finishing while the subscription is paused, disabled or pending does not re-activate it", () => {
    for (const status of ["paused", "disabled_by_failures", "pending_verify"] as const) {
      expect(transitionSubscription(s(status, 3), { type: "delivery_succeeded" })).toEqual(s(status, 0));
      expect(transitionSubscription(s(status, 3), { type: "delivery_failed" })).toEqual(s(status, 3));
      expect(transitionSubscription(s(status, 3), { type: "receiver_gone" })).toEqual(s(status, 3));
    }
    expect(transitionSubscription(s("active", 3), { type: "delivery_succeeded" })).toEqual(s("active", 0));
  });
  it("counts failures from any starting count up to the disable threshold of 5 (spec §8)", () => {
    expect(MAX_CONSECUTIVE_FAILURES).toBe(5);
    expect(transitionSubscription(s("active", 0), { type: "delivery_failed" })).toEqual(s("active", 1));
    expect(transitionSubscription(s("active", 3), { type: "delivery_failed" })).toEqual(s("active", 4));
    expect(transitionSubscription(s("active", 4), { type: "delivery_failed" })).toEqual(s("disabled_by_failures", 5));
    expect(transitionSubscription(s("active", 7), { type: "delivery_failed" })).toEqual(s("disabled_by_failures", 8));
  });
  it("delete keeps the failure count", () => {
    expect(transitionSubscription(s("active", 3), { type: "delete" })).toEqual(s("deleted", 3));
  });
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SubscriptionTransitionError);
    expect((e as Error).name).toBe("SubscriptionTransitionError");
    return (e as SubscriptionTransitionError).code;
  }
  return "no error";
}
