import { describe, expect, it } from "vitest";
import { checkPaymentCaps } from "./checkPaymentCaps.ts";

const base = { perCallCap: 100n, spendCap: 1000n, used: 0n, reserved: 0n };

describe("checkPaymentCaps", () => {
  it("accepts up to the per-call cap and exactly up to the lifetime cap", () => {
    expect(checkPaymentCaps({ ...base, amount: 100n })).toBeNull();
    expect(checkPaymentCaps({ ...base, amount: 100n, used: 850n, reserved: 50n })).toBeNull();
  });
  it("names the per-call cap first", () => {
    expect(checkPaymentCaps({ ...base, amount: 101n })).toBe("per_call_cap_exceeded");
    expect(checkPaymentCaps({ ...base, amount: 101n, used: 1000n })).toBe("per_call_cap_exceeded");
  });
  it("counts in-flight reservations against the lifetime cap", () => {
    expect(checkPaymentCaps({ ...base, amount: 1n, used: 950n, reserved: 50n })).toBe("spend_cap_exceeded");
    expect(checkPaymentCaps({ ...base, amount: 100n, used: 901n })).toBe("spend_cap_exceeded");
  });
  it("works beyond 2^53", () => {
    const big = 2n ** 200n;
    expect(checkPaymentCaps({ amount: big, perCallCap: big, spendCap: big * 2n, used: big, reserved: 0n })).toBeNull();
    expect(checkPaymentCaps({ amount: big, perCallCap: big, spendCap: big * 2n, used: big, reserved: 1n })).toBe("spend_cap_exceeded");
  });
});
