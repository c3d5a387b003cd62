import { describe, expect, it } from "vitest";
import { parseLogLine, quietOnTerminal } from "../scripts/lib.ts";

// What `npm start` shows on a terminal: one ✓ line per part and the ready block, not the services' start-up chatter
// nor a line per successful request; warnings, errors, crashes and everything under --verbose always.
const line = (o: Record<string, unknown>) => parseLogLine(JSON.stringify(o));
const info = { logLevel: "info", ready: false };
const ready = { logLevel: "info", ready: true };

describe("quietOnTerminal", () => {
  it("keeps the services' info lines out until the ready block", () => {
    expect(quietOnTerminal("indexer", "info", line({ level: 30, msg: "registry loaded" }), info)).toBe(true);
    expect(quietOnTerminal("devnet", "info", line({ event: "demo_setup", funded: [] }), info)).toBe(true);
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "request", status: 200 }), info)).toBe(true);
    expect(quietOnTerminal("indexer", "info", line({ level: 30, msg: "caught up" }), ready)).toBe(false);
  });

  it("after the ready block, keeps only the API's successful request lines out", () => {
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "request", status: 200 }), ready)).toBe(true);
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "request", status: 304 }), ready)).toBe(true);
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "request", status: 404 }), ready)).toBe(false);
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "request", status: 500 }), ready)).toBe(false);
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "api stopping" }), ready)).toBe(false);
    expect(quietOnTerminal("worker", "info", line({ level: 30, msg: "request", status: 200 }), ready)).toBe(false);
  });

  it("always shows warnings, errors and lines that are not JSON", () => {
    expect(quietOnTerminal("indexer", "warn", line({ level: 40, msg: "rpc retry" }), info)).toBe(false);
    expect(quietOnTerminal("api", "error", line({ level: 50, msg: "request", status: 200 }), ready)).toBe(false);
    expect(quietOnTerminal("api", "info", parseLogLine("Error: listen EADDRINUSE 127.0.0.1:3000"), info)).toBe(false);
  });

  it("shows every line at debug (--verbose)", () => {
    expect(quietOnTerminal("indexer", "info", line({ level: 30, msg: "registry loaded" }), { logLevel: "debug", ready: false })).toBe(false);
    expect(quietOnTerminal("api", "info", line({ level: 30, msg: "request", status: 200 }), { logLevel: "debug", ready: true })).toBe(false);
    expect(quietOnTerminal("devnet", "debug", line({ event: "tx" }), { logLevel: "trace", ready: true })).toBe(false);
  });
});
