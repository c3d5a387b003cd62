export interface CoalescedRuns {
  /** Starts `task`, or, while it runs, asks for one more run after it (calls in between coalesce into that one). */
  run(): void;
  /** Resolves once no run is in progress or pending. */
  idle(): Promise<void>;
  /** No new run starts and no re-run follows the current one; resolves when it has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `task` one at a time; a rejection goes to `onError` and does not stop a requested re-run. The one way a
 * wake-up-driven loop runs (the API's feed hub, the worker's webhook dispatcher).
 */
export function coalesceRuns(task: () => Promise<void>, onError: (error: Error) => void): CoalescedRuns {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  return {
    run() {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          await task().catch(onError);
        } while (again && !stopped);
      })().finally(() => (running = null));
    },
    idle: async () => void (await running),
    async stop() {
      stopped = true;
      await running;
    },
  };
}
