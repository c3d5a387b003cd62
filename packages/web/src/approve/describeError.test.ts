import { PasskeyHostError } from "../shared/passkeyHost.ts";
import { describe, expect, it } from "vitest";
import { ApiCallError } from "@agent-ledger/client";
import { describeError } from "./describeError.ts";

const domError = (name: string) => Object.assign(new Error("The operation either timed out or was not allowed."), { name });

describe("describeError", () => {
  it("recognizes a cancelled passkey prompt, also wrapped in causes", () => {
    expect(describeError(domError("NotAllowedError")).kind).toBe("cancelled");
    const wrapped = new Error("Failed to request credential.", { cause: new Error("inner", { cause: domError("NotAllowedError") }) });
    expect(describeError(wrapped)).toMatchObject({ kind: "cancelled", title: "The passkey prompt was cancelled" });
  });
  it("shows the server's message, and calls out expired codes", () => {
    expect(describeError(new ApiCallError(400, "invalid_caps", "per_call_cap_wei exceeds spend_cap_wei."))).toMatchObject({
      kind: "server",
      detail: "per_call_cap_wei exceeds spend_cap_wei. (invalid_caps)",
    });
    expect(describeError(new ApiCallError(410, "pairing_expired", "This code expired."))).toMatchObject({ kind: "expired" });
    expect(describeError(new ApiCallError(401, "unauthorized", "sign in again"))).toMatchObject({ kind: "signin" });
  });
  it("says when the code endpoints are rate limited (429) or cannot count attempts (503)", () => {
    expect(describeError(new ApiCallError(429, "rate_limited", "too many device code requests; retry in 42 s"))).toEqual({
      kind: "server",
      title: "Too many attempts",
      detail: "too many device code requests; retry in 42 s Nothing was approved; wait, then try again.",
    });
    expect(describeError(new ApiCallError(503, "rate_limit_unavailable", "the rate limiter is unavailable"))).toMatchObject({
      kind: "server",
      title: "The server cannot check this code right now",
    });
  });
  it("tells no answer (the client's status 0) from a refusal: network, or a timeout while the chain confirms", () => {
    const offline = new ApiCallError(0, "api_unreachable", "cannot reach the API at this site (Failed to fetch)", null, {
      cause: new TypeError("Failed to fetch"),
    });
    expect(describeError(offline)).toMatchObject({ kind: "network", title: "Cannot reach the server" });
    const slow = new ApiCallError(0, "api_unreachable", "cannot reach the API at this site (no answer within 90 s)", null, { cause: domError("TimeoutError") });
    expect(describeError(slow)).toMatchObject({ kind: "chain", title: "The chain did not confirm in time" });
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
