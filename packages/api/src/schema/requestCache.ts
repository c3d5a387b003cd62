import type { GraphqlContext } from "./builder.ts";

/**
 * Per-request memoization kept ON the request's context object (a Map in `ctx.requestCache`), not in a module-level
 * WeakMap keyed by the context.
 *
 * Why (measured on the gateway detail query; BENCHMARKS.md, bench:api, the run in its git history): with Pothos'
 * createContextCache
 * (a module-level WeakMap per loader), the loaded rows of each request survived V8's young-generation collections
 * until a full collection: ~1.6 MB promoted per scavenge, scavenges 3× longer, ~20 % less throughput than REST's
 * identical work. Kept on the context, they die young like REST's (~60 KB promoted per scavenge). The execution also
 * empties the map when it is done (graphql/useReleaseRequestCache.ts), so a context that happened to be promoted
 * does not keep its rows alive either.
 */
export function createRequestCache<T, A extends unknown[] = []>(create: (ctx: GraphqlContext, ...args: A) => T): (ctx: GraphqlContext, ...args: A) => T {
  const slot = {}; // this cache's identity in each context's map
  return (ctx, ...args) => {
    const store = (ctx.requestCache ??= new Map());
    if (store.has(slot)) return store.get(slot) as T;
    const entry = create(ctx, ...args);
    store.set(slot, entry);
    return entry;
  };
}

/** Drops everything the request's loaders hold; the next use in the same context starts empty. */
export function releaseRequestCache(ctx: GraphqlContext | null | undefined): void {
  ctx?.requestCache?.clear();
}
