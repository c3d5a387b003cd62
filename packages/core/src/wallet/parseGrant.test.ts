import { describe, expect, it } from "vitest";
import { parseGrant } from "./parseGrant.ts";

const ok = { spend_cap_wei: "10000000", per_call_cap_wei: "1000000", session_ttl_seconds: 3600 };

describe("parseGrant", () => {
  it("accepts caps and ttl", () => {
    expect(parseGrant(ok)).toEqual({ ok: true, grant: { spendCap: 10_000_000n, perCallCap: 1_000_000n, ttlSeconds: 3600 } });
    expect(parseGrant({ ...ok, per_call_cap_wei: "10000000", session_ttl_seconds: 60 }).ok).toBe(true);
    expect(parseGrant({ ...ok, session_ttl_seconds: 30 * 24 * 3600 }).ok).toBe(true);
  });
  it.each([
    [{ ...ok, spend_cap_wei: "0" }, "invalid_cap"],
    [{ ...ok, spend_cap_wei: 10 }, "invalid_cap"],
    [{ ...ok, per_call_cap_wei: "-1" }, "invalid_cap"],
    [{ ...ok, per_call_cap_wei: "10000001" }, "invalid_cap"],
    [{ ...ok, session_ttl_seconds: 59 }, "invalid_ttl"],
    [{ ...ok, session_ttl_seconds: 30 * 24 * 3600 + 1 }, "invalid_ttl"],
    [{ ...ok, session_ttl_seconds: "3600" }, "invalid_ttl"],
    [{ ...ok, session_ttl_seconds: 3600.5 }, "invalid_ttl"],
    [{}, "invalid_cap"],
  ])("%j → %s", (input, code) => expect(parseGrant(input)).toMatchObject({ ok: false, code }));

  it("names the field at fault in each refusal", () => {
    expect(parseGrant({ ...ok, spend_cap_wei: undefined })).toEqual({
      ok: false,
      code: "invalid_cap",
      message: "spend_cap_wei must be a positive integer string (base units)",
    });
    expect(parseGrant({ ...ok, per_call_cap_wei: undefined })).toEqual({
      ok: false,
      code: "invalid_cap",
      message: "per_call_cap_wei must be a positive integer string (base units)",
    });
    expect(parseGrant({ ...ok, per_call_cap_wei: "10000001" })).toEqual({
      ok: false,
      code: "invalid_cap",
      message: "per_call_cap_wei cannot exceed spend_cap_wei",
    });
    for (const session_ttl_seconds of [undefined, null, 59, 2_592_001, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(parseGrant({ ...ok, session_ttl_seconds }), String(session_ttl_seconds)).toEqual({
        ok: false,
        code: "invalid_ttl",
        message: "session_ttl_seconds must be an integer from 60 to 2592000",
      });
    }
  });
});
