import { PasskeyHostError } from "../shared/passkeyHost.ts";
import { describe, expect, it } from "vitest";
import { ApiError, describeError } from "./describeError.ts";

const domError = (name: string) => Object.assign(new Error("The operation either timed out or was not allowed."), { name });

describe("describeError", () => {
  it("recognizes a cancelled passkey prompt, also wrapped in causes", () => {
    expect(describeError(domError("NotAllowedError")).kind).toBe("cancelled");
    const wrapped = new Error("Failed to request credential.", { cause: new Error("inner", { cause: domError("NotAllowedError") }) });
    expect(describeError(wrapped)).toMatchObject({ kind: "cancelled", title: "The passkey prompt was cancelled" });
  });
  it("shows the server's message, and calls out expired codes", () => {
    expect(describeError(new ApiError(400, "invalid_caps", "per_call_cap_wei exceeds spend_cap_wei."))).toMatchObject({ kind: "server", detail: "per_call_cap_wei exceeds spend_cap_wei. (invalid_caps)" });
    expect(describeError(new ApiError(410, "pairing_expired", "This code expired."))).toMatchObject({ kind: "expired" });
    expect(describeError(new ApiError(401, "unauthorized", "sign in again"))).toMatchObject({ kind: "signin" });
  });
  it("says when the code endpoints are rate limited (429) or cannot count attempts (503)", () => {
    expect(describeError(new ApiError(429, "rate_limited", "too many device code requests; retry in 42 s"))).toEqual({
      kind: "server", title: "Too many attempts", detail: "too many device code requests; retry in 42 s Nothing was approved; wait, then try again.",
    });
    expect(describeError(new ApiError(503, "rate_limit_unavailable", "the rate limiter is unavailable"))).toMatchObject({ kind: "server", title: "The server cannot check this code right now" });
  });
  it("falls back to the message", () => {
    expect(describeError(new Error("boom"))).toMatchObject({ kind: "unknown", detail: "boom" });
    expect(describeError(Object.assign(new Error("x"), { shortMessage: "Execution reverted" }))).toMatchObject({ kind: "chain", detail: "Execution reverted" });
  });
});

describe("describeError: the page at another address than the passkey's domain", () => {
  it("names the domain and the address to open", () => {
    const d = describeError(new PasskeyHostError("localhost", "http://localhost:3000/approve?code=ABCD-EFGH"));
    expect(d.kind).toBe("unsupported");
    expect(d.title).toBe("Open this page at localhost");
    expect(d.detail).toContain("Open http://localhost:3000/approve?code=ABCD-EFGH to use your passkey.");
  });
});
