import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AuthError } from "../src/auth/authenticate.ts";
import { ApiError, ERROR_STATUS } from "../src/errors.ts";
import { FeedError } from "../src/feed/parseFeedParams.ts";
import { tableCode } from "../src/graphql/maskError.ts";
import { BodyError } from "../src/http/readBody.ts";
import { WalletError } from "../src/wallet/WalletError.ts";
import { WebhookError } from "../src/webhooks/WebhookError.ts";

/** The rows `| \`code\` | status | … |` of docs/api.md's "### Error codes" table. */
function documentedTable(): Record<string, number> {
  const doc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
  const lines = doc.slice(doc.indexOf("### Error codes")).split("\n");
  const start = lines.findIndex((l) => l.startsWith("| code |"));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
  const rows: Record<string, number> = {};
  for (const line of lines.slice(start, end)) {
    const m = /^\| `([a-z0-9_]+)` \| (\d{3}) \|/.exec(line);
    if (m) {
      expect(rows[m[1]!], `${m[1]} documented twice`).toBeUndefined();
      rows[m[1]!] = Number(m[2]);
    }
  }
  return rows;
}

describe("the one error table", () => {
  it("docs/api.md lists exactly the code → status table of src/errors.ts", () => {
    const documented = documentedTable();
    expect(Object.keys(documented).length).toBeGreaterThan(50);
    expect(documented).toEqual({ ...ERROR_STATUS });
  });

  it("every surface's error is an ApiError whose status comes from the table", () => {
    const errors = [
      new AuthError("session_revoked", "x"),
      new BodyError("payload_too_large", "x"),
      new WalletError("rate_limited", "x", { "retry-after": "3" }),
      new WebhookError("limit_reached", "x"),
      new FeedError("feed_unavailable", "x"),
    ];
    for (const e of errors) {
      expect(e).toBeInstanceOf(ApiError);
      expect(e.status).toBe(ERROR_STATUS[e.code]);
      expect(Object.getOwnPropertyNames(Object.getPrototypeOf(e))).toEqual(["constructor"]); // no mapping of its own
    }
    expect(errors.map((e) => e.name)).toEqual(["AuthError", "BodyError", "WalletError", "WebhookError", "FeedError"]);
    expect(errors[2]!.headers).toEqual({ "retry-after": "3" });
  });

  it("every code is snake_case", () => {
    for (const code of Object.keys(ERROR_STATUS)) expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it("graphql-yoga's upper-case codes become the table's codes", () => {
    expect(tableCode("BAD_REQUEST")).toBe("bad_request");
    expect(tableCode("GRAPHQL_PARSE_FAILED")).toBe("graphql_parse_failed");
    expect(tableCode("GRAPHQL_VALIDATION_FAILED")).toBe("graphql_validation_failed");
    expect(tableCode("REQUEST_ENTITY_TOO_LARGE")).toBe("payload_too_large");
    expect(tableCode("INTERNAL_SERVER_ERROR")).toBe("internal_error");
    expect(tableCode("PERSISTED_QUERY_NOT_FOUND", 404)).toBe("invalid_request");
    expect(tableCode("SOMETHING_ELSE", 503)).toBe("internal_error");
    expect(tableCode("invalid_variables")).toBe("invalid_variables");
    for (const code of ["BAD_REQUEST", "GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "REQUEST_ENTITY_TOO_LARGE", "INTERNAL_SERVER_ERROR", "X"]) {
      expect(Object.hasOwn(ERROR_STATUS, tableCode(code) as string)).toBe(true);
    }
  });
});
