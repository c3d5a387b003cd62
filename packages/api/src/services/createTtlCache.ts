/**
 * A small in-process cache: values live `ttlMs` (monotonic clock); concurrent misses of one key share a single
 * computation (single-flight). Failures are not cached. `ttlMs = 0` keeps only the single-flight.
 */
export function createTtlCache<V>(ttlMs: number, clock: () => number = () => performance.now()) {
  const entries = new Map<string, { expires: number; value: Promise<V> }>();
  return {
    get(key: string, compute: () => Promise<V>): Promise<V> {
      const hit = entries.get(key);
      if (hit && hit.expires > clock()) return hit.value;
      const entry = { expires: Number.POSITIVE_INFINITY, value: compute() };
      entries.set(key, entry);
      entry.value.then(
        () => {
          entry.expires = clock() + ttlMs;
          if (ttlMs <= 0 && entries.get(key) === entry) entries.delete(key);
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return entry.value;
    },
    clear(): void {
      entries.clear();
    },
  };
}
