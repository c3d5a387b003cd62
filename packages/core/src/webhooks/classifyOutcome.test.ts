import { describe, expect, it } from "vitest";
import { classifyOutcome } from "./classifyOutcome.ts";

// Spec §6, outcome rules per delivery attempt: 2xx success, 410 gone, 429/5xx/network/timeout retry, anything else reject.
describe("classifyOutcome", () => {
  it.each([
    [100, "reject"],
    [199, "reject"],
    [200, "success"],
    [204, "success"],
    [299, "success"],
    [300, "reject"],
    [301, "reject"],
    [400, "reject"],
    [409, "reject"],
    [410, "gone"],
    [428, "reject"],
    [429, "retry"],
    [430, "reject"],
    [499, "reject"],
    [500, "retry"],
    [503, "retry"],
    [599, "retry"],
    [600, "reject"],
  ])("HTTP %i → %s", (status, outcome) => {
    expect(classifyOutcome({ type: "response", status })).toBe(outcome);
  });

  it("a network error or a timeout is retried", () => {
    expect(classifyOutcome({ type: "network_error" })).toBe("retry");
    expect(classifyOutcome({ type: "timeout" })).toBe("retry");
  });
});
