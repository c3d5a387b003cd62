import { describe, expect, it } from "vitest";
import { classifyOutcome } from "./classifyOutcome.ts";
import { planAfterAttempt } from "./planAfterAttempt.ts";

const now = new Date("2026-11-22T06:00:00Z");
const active = { status: "active" as const, consecutiveFailures: 2 };
const plan = (status: number | "timeout" | "network_error", attempt = 1, retryAfterMs?: number) =>
  planAfterAttempt({
    attempt,
    result: typeof status === "number" ? { type: "response", status } : { type: status },
    retryAfterMs,
    subscription: active,
    now,
    random: 0.5,
  });

describe("classifyOutcome / planAfterAttempt (spec outcome table)", () => {
  it.each([
    [200, "success"],
    [204, "success"],
    [299, "success"],
    [410, "gone"],
    [429, "retry"],
    [500, "retry"],
    [503, "retry"],
    [599, "retry"],
    [400, "reject"],
    [401, "reject"],
    [404, "reject"],
    [409, "reject"],
    [301, "reject"],
    [302, "reject"],
    [100, "reject"],
    // the edges: only 200–299 is a success (spec §6: "2xx"), a 3xx is not followed and is no success either
    [199, "reject"],
    [300, "reject"],
    [411, "reject"],
    [428, "reject"],
    [430, "reject"],
    [499, "reject"],
    [600, "reject"],
    [0, "reject"],
  ])("HTTP %i → %s", (status, outcome) => {
    expect(classifyOutcome({ type: "response", status })).toBe(outcome);
  });

  it("2xx: succeeded, failures reset", () => {
    expect(plan(200)).toEqual({
      outcome: "success",
      delivery: { status: "succeeded", nextAttemptAt: null },
      subscription: { status: "active", consecutiveFailures: 0 },
    });
  });
  it("410: delivery dead, subscription paused", () => {
    expect(plan(410)).toMatchObject({ delivery: { status: "dead" }, subscription: { status: "paused", consecutiveFailures: 2 } });
  });
  it("other 4xx: dead without counting a failure", () => {
    expect(plan(400)).toMatchObject({ delivery: { status: "dead" }, subscription: active });
  });
  it("429/5xx/timeout/network: retry on schedule, counting a failure", () => {
    for (const s of [429, 500, "timeout", "network_error"] as const) {
      expect(plan(s, 2)).toEqual({
        outcome: "retry",
        delivery: { status: "retrying", nextAttemptAt: new Date(now.getTime() + 120_000) },
        subscription: { status: "active", consecutiveFailures: 3 },
      });
    }
  });
  it("honours a longer Retry-After", () => {
    expect(plan(429, 1, 600_000).delivery.nextAttemptAt).toEqual(new Date(now.getTime() + 600_000));
  });
  it("the 8th failed attempt kills the delivery", () => {
    expect(plan(500, 8).delivery).toEqual({ status: "dead", nextAttemptAt: null });
  });
  it("the 5th consecutive failure disables the subscription", () => {
    const p = planAfterAttempt({ attempt: 1, result: { type: "timeout" }, subscription: { status: "active", consecutiveFailures: 4 }, now, random: 0.5 });
    expect(p.subscription).toEqual({ status: "disabled_by_failures", consecutiveFailures: 5 });
  });
  it("a subscription deleted mid-attempt stays deleted and the delivery is not retried (no throw)", () => {
    const deleted = { status: "deleted" as const, consecutiveFailures: 1 };
    const p = (status: number) => planAfterAttempt({ attempt: 1, result: { type: "response", status }, subscription: deleted, now, random: 0.5 });
    expect(p(200)).toEqual({ outcome: "success", delivery: { status: "succeeded", nextAttemptAt: null }, subscription: deleted });
    expect(p(500)).toEqual({ outcome: "retry", delivery: { status: "dead", nextAttemptAt: null }, subscription: deleted });
    expect(p(410)).toEqual({ outcome: "gone", delivery: { status: "dead", nextAttemptAt: null }, subscription: deleted });
  });
});
