/** An async iterator with `return` and `throw` (what graphql-sse treats as an async generator it must close). */
export interface ClosableAsyncIterator<T> extends AsyncIterableIterator<T> {
  return(): Promise<IteratorResult<T, undefined>>;
  throw(error?: unknown): Promise<IteratorResult<T, undefined>>;
}

/**
 * Maps an async iterator like graphql-js's internal helper: `return()` goes straight to the source (an async
 * generator would queue it behind a pending `next()`, so a subscription waiting for its next row could not end).
 */
export function mapAsyncIterator<T, U>(source: AsyncIterator<T>, map: (value: T) => U | Promise<U>): ClosableAsyncIterator<U> {
  return {
    async next(): Promise<IteratorResult<U, undefined>> {
      const step = await source.next();
      if (step.done) return { value: undefined, done: true };
      try {
        return { value: await map(step.value), done: false };
      } catch (error) {
        await source.return?.().catch(() => {});
        throw error;
      }
    },
    async return(): Promise<IteratorResult<U, undefined>> {
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(error?: unknown): Promise<IteratorResult<U, undefined>> {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
