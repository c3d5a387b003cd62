import { describe, expect, it } from "vitest";
import { InvalidAddressError, InvalidAmountError, InvalidRegistryError, LedgerError, UnknownMethodologyError } from "./errors.ts";

// Callers branch on `code` and `name` (the API maps them to its error body), show `shortMessage` to people and log
// `message` (which may carry details) with its `cause`. User input echoed in a message is cut at 80 characters.
describe("LedgerError", () => {
  it("carries its code, name, short message and cause; details only in the full message", () => {
    const cause = new Error("socket hang up");
    const plain = new LedgerError("rpc_failed", "the node did not answer", { cause });
    expect(plain).toBeInstanceOf(Error);
    expect(plain.code).toBe("rpc_failed");
    expect(plain.name).toBe("LedgerError");
    expect(plain.shortMessage).toBe("the node did not answer");
    expect(plain.message).toBe("the node did not answer");
    expect(plain.cause).toBe(cause);

    const detailed = new LedgerError("rpc_failed", "the node did not answer", { details: "timeout after 5 s" });
    expect(detailed.shortMessage).toBe("the node did not answer");
    expect(detailed.message).toBe("the node did not answer\n\nDetails: timeout after 5 s");
    expect(detailed.cause).toBeUndefined();
    expect(new LedgerError("x", "short", { details: "" }).message).toBe("short");
    expect(new LedgerError("x", "short").message).toBe("short");
  });
});

describe("the typed errors", () => {
  it("InvalidAddressError: invalid_address, the value cut at 80 characters", () => {
    const e = new InvalidAddressError("0x12");
    expect(e).toBeInstanceOf(LedgerError);
    expect([e.code, e.name]).toEqual(["invalid_address", "InvalidAddressError"]);
    expect(e.message).toBe('"0x12" is not an address (0x followed by 40 hex characters)');
    const long = new InvalidAddressError("a".repeat(100));
    expect(long.message).toBe(`"${"a".repeat(80)}" is not an address (0x followed by 40 hex characters)`);
    expect(new InvalidAddressError(null).message).toContain('"null"');
  });

  it("InvalidAmountError: invalid_amount with the reason, the value cut at 80 characters", () => {
    const e = new InvalidAmountError("-1", "negative");
    expect(e).toBeInstanceOf(LedgerError);
    expect([e.code, e.name]).toEqual(["invalid_amount", "InvalidAmountError"]);
    expect(e.message).toBe('"-1" is not a valid amount: negative');
    expect(new InvalidAmountError("9".repeat(90), "too large").message).toBe(`"${"9".repeat(80)}" is not a valid amount: too large`);
  });

  it("UnknownMethodologyError: unknown_methodology, naming the version and the known ones", () => {
    const e = new UnknownMethodologyError("v9", ["v0.1", "v0.2"]);
    expect(e).toBeInstanceOf(LedgerError);
    expect([e.code, e.name]).toEqual(["unknown_methodology", "UnknownMethodologyError"]);
    expect(e.message).toBe('unknown methodology version "v9" (known: v0.1, v0.2)');
  });

  it("InvalidRegistryError: invalid_registry with every problem, in the message and as a list", () => {
    const e = new InvalidRegistryError(["version must be 1", "agents[0].id is missing"]);
    expect(e).toBeInstanceOf(LedgerError);
    expect([e.code, e.name]).toEqual(["invalid_registry", "InvalidRegistryError"]);
    expect(e.problems).toEqual(["version must be 1", "agents[0].id is missing"]);
    expect(e.message).toBe("registry file is invalid: version must be 1; agents[0].id is missing");
  });
});
