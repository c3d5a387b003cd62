import { describe, expect, it } from "vitest";
import { ApiCallError } from "./createApiCaller.ts";
import { fail, failFrom } from "./toolResult.ts";

const ctx = { authHint: "run `agent-ledger pair`", hasBearer: false };
const errorOf = (result: ReturnType<typeof fail>) => JSON.parse((result.content[0] as { text: string }).text).error;

describe("tool errors carry the status the API answers their code with", () => {
  it("a code that came inside a GraphQL 200 gets the API's status for it, not 200", () => {
    const result = failFrom(new ApiCallError(200, "invalid_id", "not an id"), ctx);
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toMatchObject({ code: "invalid_id", message: "not an id", status: 400 });
  });

  it("a code the server gives itself gets the table's status", () => {
    expect(errorOf(fail("not_found", "no such entity"))).toMatchObject({ code: "not_found", status: 404 });
  });

  it("a code outside the table keeps the answer's own status (a proxy's 502, 0 when nothing answered)", () => {
    expect(errorOf(failFrom(new ApiCallError(502, "http_502", "bad gateway"), ctx))).toMatchObject({ code: "http_502", status: 502 });
    expect(errorOf(failFrom(new ApiCallError(0, "api_unreachable", "cannot reach the API"), ctx))).toMatchObject({ status: 0 });
  });

  it("a refused session says how to get one, and Retry-After is passed on", () => {
    const error = errorOf(failFrom(new ApiCallError(401, "unauthorized", "unknown access token", 7), ctx));
    expect(error).toMatchObject({ code: "unauthorized", status: 401, retry_after_seconds: 7 });
    expect(error.hint).toContain("agent-ledger pair");
  });
});
