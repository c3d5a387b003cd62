import { ApiCallError } from "@agent-ledger/client";
import { describe, expect, it } from "vitest";
import { cliErrorOf } from "./cliErrorOf.ts";
import { EXIT } from "./exitCodes.ts";

describe("cliErrorOf", () => {
  it("exits 6 with a hint when the API did not answer", () => {
    const e = cliErrorOf(new ApiCallError(0, "api_unreachable", "cannot reach the API at http://127.0.0.1:1 (ECONNREFUSED)"));
    expect(e.exitCode).toBe(EXIT.UNREACHABLE);
    expect(e.message).toBe("cannot reach the API at http://127.0.0.1:1 (ECONNREFUSED)");
    expect(e.details).toEqual({ code: "unreachable", hint: "is the API running? set --api or AGENT_LEDGER_API" });
  });
  it("keeps the API's code and status, and takes the exit code from them", () => {
    expect(cliErrorOf(new ApiCallError(401, "unauthorized", "no token"))).toMatchObject({
      exitCode: EXIT.UNAUTHORIZED,
      message: "no token",
      details: { code: "unauthorized", status: 401 },
    });
    expect(cliErrorOf(new ApiCallError(403, "session_revoked", "revoked"))).toMatchObject({ exitCode: EXIT.EXPIRED });
    expect(cliErrorOf(new ApiCallError(502, "http_502", "POST /api/wallet/pay answered 502 Bad Gateway"))).toMatchObject({
      exitCode: EXIT.ERROR,
      details: { code: "http_502", status: 502 },
    });
  });
});
