import { describe, expect, it } from "vitest";
import { RpcError } from "./createRpcClient.ts";
import { isLogRangeError } from "./isLogRangeError.ts";

describe("isLogRangeError", () => {
  it.each([
    [-32005, "limit exceeded"],
    [-32602, "query returned more than 10000 results"],
    [-32000, "block range is too wide"],
    [-32000, "exceed maximum block range: 5000"],
    [undefined, "response too large (99999999 bytes)"],
  ])("recognizes %s %s", (code, message) => {
    expect(isLogRangeError(new RpcError("eth_getLogs", message, { code }))).toBe(true);
  });
  it.each([
    [undefined, "request failed: fetch failed"],
    [-32603, "internal error"],
    [undefined, "HTTP 503"],
  ])("treats %s %s as an outage", (code, message) => {
    expect(isLogRangeError(new RpcError("eth_getLogs", message, { code }))).toBe(false);
  });
});
