/** The hub's poll fallback: `wake` every `pollMs` (heals a NOTIFY that never arrived); the timer keeps no process alive. Returns its stop. */
export function startPolling(wake: () => void, pollMs: number): () => void {
  const timer = setInterval(wake, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
