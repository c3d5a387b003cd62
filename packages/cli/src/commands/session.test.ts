import { describe, expect, it } from "vitest";
import { UsageError } from "../exitCodes.ts";
import { PAY_RETRY_WINDOW_MS, payWindowMs } from "./session.ts";

describe("payWindowMs (how long pay waits on a pending payment before exit 7)", () => {
  it("is 2 minutes by default", () => {
    expect(PAY_RETRY_WINDOW_MS).toBe(120_000);
    expect(payWindowMs(undefined, {})).toBe(120_000);
    expect(payWindowMs(undefined, { AGENT_LEDGER_PAY_PENDING_TIMEOUT: "" })).toBe(120_000);
  });
  it("takes --pending-timeout, else $AGENT_LEDGER_PAY_PENDING_TIMEOUT, in whole seconds", () => {
    expect(payWindowMs("5", { AGENT_LEDGER_PAY_PENDING_TIMEOUT: "9" })).toBe(5_000);
    expect(payWindowMs(undefined, { AGENT_LEDGER_PAY_PENDING_TIMEOUT: "9" })).toBe(9_000);
    expect(payWindowMs("86400", {})).toBe(86_400_000);
  });
  it.each(["0", "-1", "1.5", "2m", " 3", "86401", "1e3", "abc"])("refuses %j (exit 2)", (value) => {
    expect(() => payWindowMs(value, {})).toThrow(UsageError);
    expect(() => payWindowMs(undefined, { AGENT_LEDGER_PAY_PENDING_TIMEOUT: value })).toThrow(/AGENT_LEDGER_PAY_PENDING_TIMEOUT must be whole seconds/);
  });
});
