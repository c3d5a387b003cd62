import { describe, expect, it } from "vitest";
import { classifySendError } from "./classifySendError.ts";

describe("classifySendError", () => {
  it.each([
    // what the Tempo devnet (anvil 1.7.1, T4) answers, seen on the wire
    [-32003, "insufficient fee token balance: have 0, need 42000"],
    [-32003, "Tempo tx valid_before (1795577305) must be > current time + 3s (1795577313)"],
    [-32003, "invalid chain id for signer"],
    [-32003, "max fee per gas less than block base fee"],
    [-32602, "Failed to decode transaction"],
    // geth / reth pool validation
    [-32000, "insufficient funds for gas * price + value"],
    [-32000, "intrinsic gas too low"],
    [-32000, "invalid sender"],
    [-32000, "nonce too high"],
  ])("%i %s → refused", (code, message) => {
    expect(classifySendError({ code, message })).toBe("refused");
  });

  it.each([
    // the transaction may be in the pool or already included
    [-32000, "already known"],
    [-32003, "known transaction: 0xabc"],
    [-32000, "transaction already imported"],
    [-32000, "nonce too low: next nonce 1, tx nonce 0"],
    [-32000, "replacement transaction underpriced"],
    [-32000, "request timed out"],
    [-32003, "The transaction was added to the mempool but wasn't processed in 15s"],
    // codes that say nothing about a refusal
    [4, "The transaction was added to the mempool but wasn't processed in 2s"],
    [5, "transaction not ready"],
    [-32603, "internal error"],
    [-32005, "limit exceeded"],
    [-32002, "resource unavailable"],
    [-32601, "method not found"],
    [3, "execution reverted"],
    [0, ""],
  ])("%i %s → uncertain", (code, message) => {
    expect(classifySendError({ code, message })).toBe("uncertain");
  });

  it("a malformed error object is uncertain", () => {
    expect(classifySendError({ code: "-32003", message: "insufficient funds" })).toBe("uncertain");
    expect(classifySendError({ code: undefined, message: undefined })).toBe("uncertain");
    expect(classifySendError({ code: -32003, message: undefined })).toBe("refused");
  });
});

describe("classifySendError: a message that is not text", () => {
  it("says nothing: a refusal code with a non-string message stays refused, whatever its text would read", () => {
    expect(classifySendError({ code: -32003, message: ["nonce too low"] })).toBe("refused");
    expect(classifySendError({ code: -32000, message: null })).toBe("refused");
  });
});
