import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createSchema, createYoga } from "graphql-yoga";
import { afterEach, describe, expect, it } from "vitest";
import type { GraphqlContext } from "../schema/builder.ts";
import { createRequestCache, releaseRequestCache } from "../schema/requestCache.ts";
import { useReleaseRequestCache } from "./useReleaseRequestCache.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe("createRequestCache", () => {
  it("memoizes one entry per context, kept on the context itself, until released", () => {
    let created = 0;
    const cache = createRequestCache((_ctx, tag: string) => ({ tag, n: ++created }));
    const other = createRequestCache(() => "other");
    const a = {} as GraphqlContext;
    const b = {} as GraphqlContext;
    expect(cache(a, "x")).toBe(cache(a, "y")); // per context, not per argument
    expect(cache(a, "x").tag).toBe("x");
    expect(cache(b, "z")).not.toBe(cache(a, "x"));
    expect(other(a)).toBe("other");
    expect(a.requestCache?.size).toBe(2); // both caches' entries live on the context
    expect(created).toBe(2);
    releaseRequestCache(a);
    expect(a.requestCache?.size).toBe(0);
    expect(cache(a, "again").n).toBe(3); // a fresh entry after release
    releaseRequestCache(undefined); // no context: nothing to do
  });
});

describe("useReleaseRequestCache", () => {
  it("empties the request's caches once its execution is done", async () => {
    const loader = createRequestCache(() => new Map<string, string>());
    const seen: { ctx: GraphqlContext; sizeDuring: number }[] = [];
    const yoga = createYoga({
      schema: createSchema<GraphqlContext>({
        typeDefs: "type Query { a: String! b: String! }",
        resolvers: {
          Query: {
            a: (_r, _a, ctx) => {
              loader(ctx).set("a", "1");
              seen.push({ ctx, sizeDuring: ctx.requestCache!.size });
              return "a";
            },
            // a later field of the same request sees what the first one cached
            b: async (_r, _a, ctx) => {
              await new Promise((r) => setTimeout(r, 5));
              return loader(ctx).get("a") ?? "missing";
            },
          },
        },
      }),
      context: () => ({}) as Partial<GraphqlContext>,
      plugins: [useReleaseRequestCache()],
      logging: false,
    });
    const server = createServer(yoga);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;

    for (let i = 0; i < 2; i++) {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ a b }" }) });
      expect(await res.json()).toEqual({ data: { a: "a", b: "1" } });
    }
    expect(seen).toHaveLength(2);
    expect(seen[0]!.ctx).not.toBe(seen[1]!.ctx);
    for (const s of seen) {
      expect(s.sizeDuring).toBe(1);
      expect(s.ctx.requestCache!.size).toBe(0);
    }
  });
});
