import { describe, expect, it } from "vitest";
import { parseRecoverSince, RECOVER_MAX_AGE_MS, RecoverSinceError } from "./parseRecoverSince.ts";

const now = new Date("2026-11-25T12:00:00.000Z");

function codeOf(since: unknown): string {
  try {
    parseRecoverSince(since, now);
  } catch (error) {
    if (error instanceof RecoverSinceError) return error.code;
    throw error;
  }
  return "ok";
}

describe("parseRecoverSince", () => {
  it("is exactly 7 days", () => {
    expect(RECOVER_MAX_AGE_MS).toBe(604_800_000);
  });

  it("accepts date-times with Z or an offset, to the millisecond and beyond", () => {
    expect(parseRecoverSince("2026-11-25T11:00:00Z", now).toISOString()).toBe("2026-11-25T11:00:00.000Z");
    expect(parseRecoverSince("2026-11-25T13:30:00+02:00", now).toISOString()).toBe("2026-11-25T11:30:00.000Z");
    expect(parseRecoverSince("2026-11-25T11:00Z", now).toISOString()).toBe("2026-11-25T11:00:00.000Z");
    expect(parseRecoverSince("2026-11-25T11:00:00.123456Z", now).toISOString()).toBe("2026-11-25T11:00:00.123Z");
  });

  it("takes the bound from now: exactly 7 days back passes, one millisecond more is refused (not clamped)", () => {
    expect(parseRecoverSince("2026-11-18T12:00:00.000Z", now).toISOString()).toBe("2026-11-18T12:00:00.000Z");
    expect(codeOf("2026-11-18T11:59:59.999Z")).toBe("since_too_old");
    expect(codeOf("2020-01-01T00:00:00Z")).toBe("since_too_old");
    // The same instant is fine a day earlier: the bound moves with now.
    expect(parseRecoverSince("2026-11-17T12:00:00Z", new Date("2026-11-24T12:00:00Z")).toISOString()).toBe("2026-11-17T12:00:00.000Z");
  });

  it("accepts a since in the future (it matches nothing yet)", () => {
    expect(parseRecoverSince("2026-11-26T00:00:00Z", now).toISOString()).toBe("2026-11-26T00:00:00.000Z");
  });

  it.each([
    [undefined],
    [null],
    [1764072000000],
    [""],
    ["yesterday"],
    ["2026-11-25"],
    ["2026-11-25T11:00:00"],
    ["2026-11-25 11:00:00Z"],
    ["2026-02-30T00:00:00Z"],
    ["2026-11-25T24:00:00Z"],
    ["2026-11-25T11:60:00Z"],
    ["2026-11-25T11:00:60Z"],
    ["2026-13-01T00:00:00Z"],
    [" 2026-11-25T11:00:00Z"],
    [["2026-11-25T11:00:00Z"]],
    [{ toString: () => "2026-11-25T11:00:00Z" }],
    ["2026-11-25T11:00:00Z\n"],
    ["2026-11-25T11:00:00+0200"],
    ["x".repeat(100)],
  ])("refuses %j as invalid_since", (since) => {
    expect(codeOf(since)).toBe("invalid_since");
  });

  it("accepts the largest fields of a real instant: second 59, offsets up to ±23:59", () => {
    expect(parseRecoverSince("2026-11-25T11:59:59Z", now).toISOString()).toBe("2026-11-25T11:59:59.000Z");
    expect(parseRecoverSince("2026-11-25T23:59:00+23:59", now).toISOString()).toBe("2026-11-25T00:00:00.000Z");
    expect(parseRecoverSince("2026-11-24T23:00:00-05:00", now).toISOString()).toBe("2026-11-25T04:00:00.000Z");
    expect(parseRecoverSince("2026-02-28T23:59:59.999Z", new Date("2026-03-01T00:00:00Z")).toISOString()).toBe("2026-02-28T23:59:59.999Z");
  });

  it.each([["2026-11-25T11:00:00+24:00"], ["2026-11-25T11:00:00-00:60"], ["2026-11-25T11:00:00+99:99"]])(
    "refuses the offset of %j (no such instant) as invalid_since",
    (since) => {
      expect(codeOf(since)).toBe("invalid_since");
    },
  );

  it("says in its messages what was wrong and, for a too old since, the earliest instant allowed now", () => {
    const messageOf = (since: unknown) => {
      try {
        parseRecoverSince(since, now);
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    };
    expect(messageOf(42)).toMatch(/since must be an ISO 8601 date-time/);
    expect(messageOf("yesterday")).toMatch(/since must be an ISO 8601 date-time/);
    expect(messageOf("2026-02-30T00:00:00Z")).toContain('"2026-02-30T00:00:00Z" is not a valid date-time');
    expect(messageOf("2026-11-01T00:00:00Z")).toContain("earliest now: 2026-11-18T12:00:00.000Z");
    const error = (() => {
      try {
        parseRecoverSince("2026-11-01T00:00:00Z", now);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RecoverSinceError);
    expect((error as Error).name).toBe("RecoverSinceError");
  });
});

describe("parseRecoverSince: the date-time is the whole string", () => {
  it("refuses an expanded-year date (+00YYYY, which Date reads) and leading text", () => {
    expect(codeOf("+002026-11-25T03:00:00Z")).toBe("invalid_since");
    expect(codeOf("-002026-11-25T03:00:00Z")).toBe("invalid_since");
    expect(codeOf("2026-11-25T03:00:00Z")).toBe("ok");
  });
});
