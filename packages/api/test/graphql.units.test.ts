import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { acceptsJsonLane } from "../src/graphql/acceptsJsonLane.ts";
import type { ComputedResponse } from "../src/graphql/createJsonLane.ts";
import { getOperationAST, parse } from "../src/graphql/graphqlJs.ts";
import { isCacheableOperation } from "../src/graphql/isCacheableOperation.ts";
import { parseJsonGraphqlParams } from "../src/graphql/parseJsonGraphqlParams.ts";
import { stableJson } from "../src/graphql/stableJson.ts";
import { isoString, serializeDateTime } from "../src/schema/DateTime.ts";
import { createTtlCache } from "../src/services/createTtlCache.ts";

// The pure parts of the GraphQL handler's lane and response cache (the HTTP behaviour is in graphql.lane.test.ts).

const answer = (body: string, cacheable = true): ComputedResponse => ({ response: { status: 200, headers: {}, body }, cacheable });

describe("createTtlCache as the GraphQL response cache", () => {
  it("keeps an answer for the TTL of its clock, then computes again", async () => {
    let now = 0;
    let computed = 0;
    const cache = createTtlCache<ComputedResponse>(100, () => now, { keep: (c) => c.cacheable });
    const compute = async () => answer(`v${++computed}`);
    expect((await cache.get("k", compute)).response.body).toBe("v1");
    now = 99;
    expect((await cache.get("k", compute)).response.body).toBe("v1");
    expect((await cache.get("other", compute)).response.body).toBe("v2");
    now = 101;
    expect((await cache.get("k", compute)).response.body).toBe("v3");
  });

  it("shares one computation between concurrent misses", async () => {
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const cache = createTtlCache<ComputedResponse>(100, () => 0, { keep: (c) => c.cacheable });
    const compute = async () => {
      computed++;
      await gate;
      return answer("v");
    };
    const all = Promise.all([cache.get("k", compute), cache.get("k", compute), cache.get("k", compute)]);
    release();
    expect((await all).map((a) => a.response.body)).toEqual(["v", "v", "v"]);
    expect(computed).toBe(1);
  });

  it("hands a non-cacheable answer or a failure to the waiting requests, then forgets it", async () => {
    let computed = 0;
    const cache = createTtlCache<ComputedResponse>(100, () => 0, { keep: (c) => c.cacheable });
    const [a, b] = await Promise.all([cache.get("k", async () => answer(`e${++computed}`, false)), cache.get("k", async () => answer("never"))]);
    expect([a.response.body, b.response.body]).toEqual(["e1", "e1"]);
    expect(cache.size()).toBe(0);
    await expect(cache.get("k", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(cache.size()).toBe(0);
    expect((await cache.get("k", async () => answer("ok"))).response.body).toBe("ok");
    expect(cache.size()).toBe(1);
  });

  it("is bounded: the oldest key goes first", async () => {
    const cache = createTtlCache<ComputedResponse>(100, () => 0, { keep: (c) => c.cacheable, maxEntries: 2 });
    for (const k of ["a", "b", "c"]) await cache.get(k, async () => answer(k));
    expect(cache.size()).toBe(2);
    let recomputed = false;
    await cache.get("a", async () => ((recomputed = true), answer("a")));
    expect(recomputed).toBe(true);
  });
});

describe("isCacheableOperation", () => {
  const check = (source: string, name?: string) => {
    const document = parse(source);
    return isCacheableOperation(document, getOperationAST(document, name)!);
  };

  it("accepts queries of dashboard (and __typename) only, through fragments", () => {
    expect(check(`{ dashboard { txCount } }`)).toBe(true);
    expect(check(`query D($w: String!) { __typename a: dashboard(window: $w) { txCount } b: dashboard { windowHours } }`)).toBe(true);
    expect(check(`{ ...F } fragment F on Query { dashboard { txCount } ... on Query { __typename } }`)).toBe(true);
    expect(check(`{ dashboard { topServices { entity { wallets } } } }`)).toBe(true); // everything under dashboard is public
  });

  it("refuses any other root field, mutations, subscriptions and __typename alone", () => {
    expect(check(`{ dashboard { txCount } services { id } }`)).toBe(false);
    expect(check(`{ dashboard { txCount } ...F } fragment F on Query { webhooks { id } }`)).toBe(false);
    expect(check(`{ dashboard { txCount } ... @include(if: false) { search(q: "ab") { q } } }`)).toBe(false);
    expect(check(`{ __typename }`)).toBe(false);
    expect(check(`mutation { dashboard }`)).toBe(false);
    expect(check(`subscription { dashboard }`)).toBe(false);
    expect(check(`query A { services { id } } query B { dashboard { txCount } }`, "A")).toBe(false);
    expect(check(`query A { services { id } } query B { dashboard { txCount } }`, "B")).toBe(true);
  });
});

describe("parseJsonGraphqlParams", () => {
  const p = (value: unknown) => parseJsonGraphqlParams(Buffer.from(typeof value === "string" ? value : JSON.stringify(value)));

  it("takes exactly the bodies yoga accepts without comment", () => {
    expect(p({ query: "{ a }" })).toEqual({ query: "{ a }" });
    expect(p({ query: "{ a }", variables: { x: 1 }, operationName: "A", extensions: {} })).toMatchObject({ variables: { x: 1 }, operationName: "A" });
    expect(p({ query: "{ a }", variables: null, operationName: null, other: null })).toMatchObject({ query: "{ a }" });
  });

  it("leaves everything else to yoga (null)", () => {
    for (const body of [
      "",
      "[",
      "null",
      "[]",
      '"{ a }"',
      { query: 1 },
      { variables: {} },
      { query: "{ a }", other: 1 },
      { query: "{ a }", variables: [] },
      { query: "{ a }", variables: "x" },
      { query: "{ a }", operationName: 5 },
      { query: "{ a }", extensions: 1 },
      [{ query: "{ a }" }],
    ]) {
      expect(p(body), JSON.stringify(body)).toBeNull();
    }
  });
});

describe("acceptsJsonLane", () => {
  const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;
  const json = { "content-type": "application/json", "content-length": "20" };

  it("takes plain JSON POSTs whose answer is application/json", () => {
    expect(acceptsJsonLane(req("POST", json), 100)).toBe(true);
    expect(acceptsJsonLane(req("POST", { ...json, "content-type": "application/json; charset=utf-8" }), 100)).toBe(true);
    for (const accept of ["application/json", "*/*", "application/json; charset=utf-8"])
      expect(acceptsJsonLane(req("POST", { ...json, accept }), 100)).toBe(true);
  });

  it("leaves other methods, media types, chunked or oversized bodies and other Accept values to yoga", () => {
    expect(acceptsJsonLane(req("GET", json), 100)).toBe(false);
    expect(acceptsJsonLane(req("POST", { ...json, "content-type": "application/graphql" }), 100)).toBe(false);
    expect(acceptsJsonLane(req("POST", { ...json, "content-type": "application/json; charset=latin1" }), 100)).toBe(false);
    expect(acceptsJsonLane(req("POST", { "content-type": "application/json" }), 100)).toBe(false);
    expect(acceptsJsonLane(req("POST", { ...json, "content-length": "101" }), 100)).toBe(false);
    expect(acceptsJsonLane(req("POST", { ...json, "transfer-encoding": "chunked" }), 100)).toBe(false);
    for (const accept of ["application/graphql-response+json", "text/event-stream", "multipart/mixed", "application/json, text/event-stream"]) {
      expect(acceptsJsonLane(req("POST", { ...json, accept }), 100), accept).toBe(false);
    }
  });
});

describe("stableJson", () => {
  it("is independent of key order at every level", () => {
    expect(stableJson({ b: 1, a: { d: [2, { f: 1, e: 2 }], c: null } })).toBe(stableJson({ a: { c: null, d: [2, { e: 2, f: 1 }] }, b: 1 }));
    expect(stableJson({ a: 1 })).not.toBe(stableJson({ a: "1" }));
  });
});

describe("DateTime serialization (isoString)", () => {
  it("writes exactly what toISOString writes, for every year", () => {
    const edges = [0, -1, 1, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000, -30_610_224_000_001, -30_610_224_000_000, 8.64e15, -8.64e15];
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const times = [
      ...edges,
      ...Array.from({ length: 20_000 }, () => Math.trunc(random() * 8.64e15)),
      ...Array.from({ length: 20_000 }, () => 1.7e12 + Math.trunc(random() * 1e11)),
    ];
    for (const t of times) {
      const date = new Date(t);
      expect(isoString(date)).toBe(date.toISOString());
      expect(serializeDateTime(date)).toBe(date.toISOString());
    }
  });

  it("still refuses what is not a valid date", () => {
    expect(() => serializeDateTime(new Date(Number.NaN))).toThrow("not a date");
    expect(() => serializeDateTime("2026-11-22T05:00:00.000Z")).toThrow("not a date");
  });
});
