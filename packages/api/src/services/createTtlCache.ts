/**
 * The one in-process cache of the API (dashboard per window, GraphQL answers, in-flight REST and lane requests): values
 * live `ttlMs` on a monotonic `clock` (injectable for tests); concurrent misses of one key share a single computation
 * (single-flight). A failed computation, or a value `keep` refuses, is handed to the callers that were waiting for it
 * and then forgotten. `ttlMs = 0` keeps only the single-flight. At most `maxEntries` keys (the oldest goes first).
 */
export function createTtlCache<V>(
  ttlMs: number,
  clock: () => number = () => performance.now(),
  options: { maxEntries?: number; keep?: (value: V) => boolean } = {},
) {
  const maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  const keep = options.keep ?? (() => true);
  const entries = new Map<string, { expires: number; value: Promise<V> }>();
  return {
    /** The value for `key`: a fresh cached one, the one being computed, or a new computation. */
    get(key: string, compute: () => Promise<V>): Promise<V> {
      const hit = entries.get(key);
      if (hit && hit.expires > clock()) return hit.value;
      if (hit) entries.delete(key);
      const entry = { expires: Number.POSITIVE_INFINITY, value: compute() };
      entries.set(key, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      const forget = () => {
        if (entries.get(key) === entry) entries.delete(key);
      };
      entry.value.then((value) => {
        if (ttlMs > 0 && keep(value)) entry.expires = clock() + ttlMs;
        else forget();
      }, forget);
      return entry.value;
    },
    size: () => entries.size,
    clear(): void {
      entries.clear();
    },
  };
}

export type TtlCache<V> = ReturnType<typeof createTtlCache<V>>;
