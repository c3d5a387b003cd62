import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_STATUS, isErrorCode } from "./errorStatus.ts";

describe("errorStatus", () => {
  it("maps every code to a 4xx or 5xx status, and knows only its own codes", () => {
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code], code).toBeGreaterThanOrEqual(400);
    expect(ERROR_STATUS.invalid_id).toBe(400);
    expect(ERROR_STATUS.not_found).toBe(404);
    expect(isErrorCode("not_found")).toBe(true);
    expect(isErrorCode("toString")).toBe(false); // own keys only
    expect(isErrorCode("payment_pending")).toBe(false); // a result, not an error
    expect(isErrorCode(404)).toBe(false);
  });
});
