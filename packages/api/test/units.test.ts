import { describe, expect, it } from "vitest";
import { ApiError } from "../src/errors.ts";
import { READ_ROUTES } from "../src/rest/readRoutes.ts";
import { buildOpenApiDocument } from "../src/routes/buildOpenApiDocument.ts";
import { compileRoutes } from "../src/routes/compileRoutes.ts";
import { ALL_ROUTES } from "../src/routes/mountRoutes.ts";
import { decodeIdCursor, decodeOffsetCursor, encodeCursor, encodeIdCursor, encodeOffsetCursor } from "../src/services/cursor.ts";
import { createTtlCache } from "../src/services/createTtlCache.ts";
import { escapeLike } from "../src/services/likePattern.ts";
import { exceedsJsonDepth, MAX_JSON_DEPTH, parseJsonText } from "../src/http/readBody.ts";
import { parseEventId } from "../src/services/parseEventId.ts";
import { normalizeProviderKey, parseProviderKey } from "../src/services/parseProviderKey.ts";
import { parseLimit } from "../src/services/parseLimit.ts";
import { parseSearchQuery } from "../src/services/parseSearchQuery.ts";
import { resolveWindow } from "../src/services/resolveWindow.ts";
import { parseDateTime, serializeDateTime } from "../src/schema/DateTime.ts";
import { MAX_UINT256, parseUint256, serializeUint256 } from "../src/schema/Uint256.ts";
import { validateJsonSchema } from "./support/validateJsonSchema.ts";

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof ApiError ? e.code : ((e as { extensions?: { code?: string } }).extensions?.code ?? "other");
  }
  return null;
};

describe("Uint256 scalar", () => {
  it("round-trips decimal strings up to 2^256-1 exactly", () => {
    for (const v of ["0", "1", "9007199254740993", MAX_UINT256.toString()]) expect(serializeUint256(parseUint256(v))).toBe(v);
  });
  it.each([MAX_UINT256 + 1n, -1n])("refuses to serialize %s", (v) => expect(codeOf(() => serializeUint256(v))).toBe("invalid_uint256"));
  it.each(["", "01", "-1", "1e3", "1.0", " 1", "0x10", (MAX_UINT256 + 1n).toString(), 5, null])("rejects input %j", (v) =>
    expect(codeOf(() => parseUint256(v))).toBe("invalid_uint256"),
  );
  it("refuses numbers on output (never a JS number for amounts)", () => expect(codeOf(() => serializeUint256(5))).toBe("invalid_uint256"));
});

describe("DateTime scalar", () => {
  it("serializes ISO 8601 UTC and parses offsets", () => {
    expect(serializeDateTime(new Date(Date.UTC(2026, 10, 22, 5)))).toBe("2026-11-22T05:00:00.000Z");
    expect(parseDateTime("2026-11-22T06:00:00+01:00").toISOString()).toBe("2026-11-22T05:00:00.000Z");
  });
  it.each(["2026-11-22", "yesterday", "2026-13-01T00:00:00Z", 0])("rejects %j", (v) => expect(codeOf(() => parseDateTime(v))).toBe("invalid_datetime"));
});

describe("windows (UTC buckets)", () => {
  const now = new Date("2026-11-22T05:37:12.345Z");
  it("24h: the hour containing now and the 23 before it", () => {
    expect(resolveWindow("24h", now)).toEqual({
      name: "24h",
      grain: "hourly",
      from: new Date("2026-11-21T06:00:00Z"),
      to: new Date("2026-11-22T06:00:00Z"),
      windowHours: 24,
    });
  });
  it("7d: 168 hourly buckets", () => {
    const w = resolveWindow("7d", now);
    expect([w.from, w.to, w.windowHours]).toEqual([new Date("2026-11-15T06:00:00Z"), new Date("2026-11-22T06:00:00Z"), 168]);
  });
  it("30d: today and the 29 days before (daily)", () => {
    const w = resolveWindow("30d", now);
    expect([w.grain, w.from, w.to, w.windowHours]).toEqual(["daily", new Date("2026-10-24T00:00:00Z"), new Date("2026-11-23T00:00:00Z"), 720]);
  });
  it("all: every daily bucket up to today", () => expect(resolveWindow("all", now)).toMatchObject({ grain: "daily", from: null, windowHours: null }));
  it.each(["", "1d", "24H", "all "])("rejects %j", (w) => expect(codeOf(() => resolveWindow(w, now))).toBe("invalid_window"));
});

describe("input parsing", () => {
  it("event ids are 1…2^63-1 in plain decimal", () => {
    expect(parseEventId("9223372036854775807")).toBe(9223372036854775807n);
    for (const bad of ["0", "-1", "1e3", "01", "9223372036854775808", "", " 1", "١"])
      expect(
        codeOf(() => parseEventId(bad)),
        bad,
      ).toBe("invalid_id");
  });
  it("search queries are trimmed, 2–200 characters, without control characters", () => {
    expect(parseSearchQuery("  ab ")).toBe("ab");
    expect(parseSearchQuery("x".repeat(200))).toHaveLength(200);
    for (const bad of [null, "", " a ", "x".repeat(201), "a\u0000b", "ab\u007f"])
      expect(
        codeOf(() => parseSearchQuery(bad)),
        String(bad),
      ).toBe("invalid_query");
  });
  it("limits are integers within bounds", () => {
    expect(parseLimit(null, 50, 100)).toBe(50);
    expect(parseLimit("7", 50, 100)).toBe(7);
    for (const bad of ["0", "101", "1.5", "-1", "abc", "1e2", 0, 1.5])
      expect(
        codeOf(() => parseLimit(bad, 50, 100)),
        String(bad),
      ).toBe("invalid_limit");
  });
  it("LIKE wildcards are escaped", () => expect(escapeLike("100%_\\x")).toBe("100\\%\\_\\\\x"));

  it("provider keys are an address or a memo fingerprint, trimmed and lowercased; anything else is invalid_query", () => {
    expect(parseProviderKey(` 0X${"AB".repeat(20)} `)).toBe(`0x${"ab".repeat(20)}`);
    expect(parseProviderKey(`0x${"0a".repeat(10)}`)).toBe(`0x${"0a".repeat(10)}`);
    for (const bad of ["", "0x", "0x\u0000", `0x${"a".repeat(39)}\u0000`, `0x${"a".repeat(30)}`, `0x${"g".repeat(40)}`, "x".repeat(20_000)]) {
      expect(
        codeOf(() => parseProviderKey(bad)),
        JSON.stringify(bad.slice(0, 50)),
      ).toBe("invalid_query");
      expect(normalizeProviderKey(bad)).toBeNull();
    }
  });
});

describe("JSON depth bound", () => {
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more, at any depth without recursion`, () => {
    expect(exceedsJsonDepth(JSON.parse(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(exceedsJsonDepth(JSON.parse(nested(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(exceedsJsonDepth({ a: [{ b: 1 }], c: "x" }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [{ b: {} }] }, 3)).toBe(true);
    for (const scalar of [null, 1, "x", true]) expect(exceedsJsonDepth(scalar, 0)).toBe(false);
    expect(exceedsJsonDepth(JSON.parse(nested(200_000)))).toBe(true);
  });
  it("parseJsonText refuses malformed and over-deep JSON with invalid_body", () => {
    expect(parseJsonText('{"a":[1]}')).toEqual({ a: [1] });
    expect(codeOf(() => parseJsonText("{"))).toBe("invalid_body");
    expect(codeOf(() => parseJsonText(`{"method":${nested(4_000)}}`))).toBe("invalid_body");
  });
});

describe("cursors", () => {
  it("round-trip and reject anything else", () => {
    expect(decodeIdCursor(encodeIdCursor(42n))).toBe(42n);
    expect(decodeIdCursor(null)).toBeNull();
    expect(decodeOffsetCursor(encodeOffsetCursor(40))).toBe(40);
    for (const bad of [
      "",
      "!!",
      "bm90IGpzb24",
      encodeCursor({ id: "-1" }),
      encodeCursor({ id: "99999999999999999999" }),
      encodeCursor({ o: 5 }),
      encodeCursor({ id: "1", x: 1 }),
    ]) {
      expect(
        codeOf(() => decodeIdCursor(bad)),
        bad,
      ).toBe("invalid_cursor");
    }
    expect(codeOf(() => decodeOffsetCursor(encodeIdCursor(1n)))).toBe("invalid_cursor");
  });
});

describe("TTL cache", () => {
  it("computes once for concurrent misses, serves within the TTL, recomputes after it, and does not cache failures", async () => {
    let clock = 0;
    let calls = 0;
    const cache = createTtlCache<number>(5_000, () => clock);
    const compute = () => new Promise<number>((r) => setTimeout(() => r(++calls), 5));
    expect(await Promise.all([cache.get("a", compute), cache.get("a", compute), cache.get("a", compute)])).toEqual([1, 1, 1]);
    clock = 4_999;
    expect(await cache.get("a", compute)).toBe(1);
    expect(await cache.get("b", compute)).toBe(2);
    clock = 5_001;
    expect(await cache.get("a", compute)).toBe(3);
    await expect(cache.get("c", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await cache.get("c", compute)).toBe(4);
  });
  it("with TTL 0 keeps only the single-flight", async () => {
    let calls = 0;
    const cache = createTtlCache<number>(0);
    const compute = () => new Promise<number>((r) => setTimeout(() => r(++calls), 5));
    expect(await Promise.all([cache.get("a", compute), cache.get("a", compute)])).toEqual([1, 1]);
    expect(await cache.get("a", compute)).toBe(2);
  });
});

describe("routing", () => {
  it("matches templates, decodes parameters, keeps malformed escapes verbatim", () => {
    const table = compileRoutes(READ_ROUTES);
    const matchRoutes = (_routes: unknown, path: string) => table.match(path);
    expect(matchRoutes(READ_ROUTES, "/api/services/a%20b").map((m) => [m.route.path, m.params])).toEqual([["/api/services/:id", { id: "a b" }]]);
    expect(matchRoutes(READ_ROUTES, "/api/events/%E0%A4%A")[0]!.params).toEqual({ id: "%E0%A4%A" });
    expect(matchRoutes(READ_ROUTES, "/api/services/")[0]!.route.path).toBe("/api/services");
    expect(matchRoutes(READ_ROUTES, "/api/services//events")).toEqual([]);
  });
});

describe("the test's JSON Schema validator", () => {
  const doc = buildOpenApiDocument(ALL_ROUTES);
  const row = { $ref: "#/components/schemas/TopEntity" };
  it("accepts a valid value and reports missing, extra and mistyped fields", () => {
    const byToken = [{ tokenAddress: `0x20c0${"0".repeat(36)}`, symbol: "pathUSD", decimals: 6, currency: "USD", txCount: 1, amountSumWei: "10" }];
    expect(validateJsonSchema({ id: "a", label: "A", category: "c", txCount: 1, amountSumWei: "10", byToken }, row, doc as never)).toEqual([]);
    expect(
      validateJsonSchema(
        { id: "a", label: "A", category: "c", txCount: 1, amountSumWei: "10", byToken: [{ ...byToken[0], amountSumWei: 10 }] },
        row,
        doc as never,
      ),
    ).toEqual(["$.byToken[0].amountSumWei: expected string, got integer"]);
    expect(validateJsonSchema({ id: "a", label: "A", category: "c", txCount: 1.5, amountSumWei: 10, byToken, extra: 1 }, row, doc as never)).toEqual([
      "$.txCount: expected integer, got number",
      "$.amountSumWei: expected string, got integer",
      "$: unexpected property extra",
    ]);
    expect(validateJsonSchema({}, row, doc as never)).toHaveLength(6);
    expect(validateJsonSchema({ error: { code: "nope", message: "m" } }, { $ref: "#/components/schemas/Error" }, doc as never)).toHaveLength(1);
  });
});
