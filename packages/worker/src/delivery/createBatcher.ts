/**
 * Coalesces concurrent single-item calls into one batched call (group commit): items that arrive within
 * `windowMs` (default: the same turn of the event loop) — or while `maxInFlight` batches are running —
 * go out together. A single-row statement costs PostgreSQL about as much CPU as a 20-row one, so under
 * load this is most of the database cost. `run` must return one result per input, in order. A failed
 * batch fails each of its callers.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, options: { maxBatch?: number; maxInFlight?: number; windowMs?: number } = {}) {
  const maxBatch = options.maxBatch ?? 200;
  const maxInFlight = options.maxInFlight ?? 1;
  const windowMs = options.windowMs ?? 0;
  const schedule = () => (windowMs > 0 ? setTimeout(flush, windowMs) : setImmediate(flush));
  let queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;
  let inFlight = 0;

  function flush(): void {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      inFlight++;
      run(batch.map((b) => b.item))
        .then(
          (results) => {
            batch.forEach((b, i) => b.resolve(results[i]!));
          },
          (error: unknown) => {
            for (const b of batch) b.reject(error);
          },
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0 && !scheduled) {
            scheduled = true;
            setImmediate(flush); // the next batch already waited for this one
          }
        });
    }
  }

  return function call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (queue.length >= maxBatch && inFlight < maxInFlight) {
        flush();
      } else if (!scheduled && inFlight < maxInFlight) {
        scheduled = true;
        schedule();
      }
    });
  };
}
