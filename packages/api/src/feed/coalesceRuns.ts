export interface CoalescedRuns {
  /** Starts `task`, or, while it runs, asks for one more run after it (calls in between coalesce into that one). */
  run(): void;
  /** Resolves once no run is in progress or pending. */
  idle(): Promise<void>;
}

/** Runs `task` one at a time; a rejection goes to `onError` and does not stop a requested re-run. */
export function coalesceRuns(task: () => Promise<void>, onError: (error: Error) => void): CoalescedRuns {
  let running: Promise<void> | null = null;
  let again = false;
  return {
    run() {
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          await task().catch(onError);
        } while (again);
      })().finally(() => (running = null));
    },
    idle: async () => void (await running),
  };
}
