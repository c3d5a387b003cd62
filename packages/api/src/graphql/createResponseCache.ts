/** A serialized GraphQL answer: what is written to the socket. */
export interface CachedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A computed answer and whether it may be kept (only complete, error-free answers are). */
export interface ComputedResponse {
  response: CachedResponse;
  cacheable: boolean;
}

/**
 * The GraphQL response cache: serialized answers kept `ttlMs` (monotonic `clock`, injectable for tests); concurrent
 * misses of one key share one execution (single-flight). An answer that is not `cacheable` (errors) or a failed
 * computation is handed to the requests that were waiting for it and then forgotten. Bounded to `maxEntries` keys
 * (the oldest is dropped first).
 */
export function createResponseCache(options: { ttlMs: number; clock?: () => number; maxEntries?: number }) {
  const clock = options.clock ?? (() => performance.now());
  const maxEntries = options.maxEntries ?? 1_000;
  const entries = new Map<string, { expires: number; value: Promise<ComputedResponse> }>();
  return {
    /** The answer for `key`: a fresh cached one, the one being computed, or a new computation. */
    get(key: string, compute: () => Promise<ComputedResponse>): Promise<ComputedResponse> {
      const hit = entries.get(key);
      if (hit && hit.expires > clock()) return hit.value;
      if (hit) entries.delete(key);
      const entry = { expires: Number.POSITIVE_INFINITY, value: compute() };
      entries.set(key, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      const forget = () => {
        if (entries.get(key) === entry) entries.delete(key);
      };
      entry.value.then((computed) => {
        if (computed.cacheable) entry.expires = clock() + options.ttlMs;
        else forget();
      }, forget);
      return entry.value;
    },
    size: () => entries.size,
    clear: () => entries.clear(),
  };
}
