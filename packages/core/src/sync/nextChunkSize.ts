export interface ChunkPolicy {
  /** Smallest block range ever asked for. */
  min: number;
  /** Largest block range ever asked for. */
  max: number;
  /** A request slower than this is "slow"; one under half of it is "fast". */
  targetMs: number;
  /** A response with more logs than this is "big" and does not grow the range. */
  maxLogs: number;
}

export type ChunkOutcome = { type: "ok"; elapsedMs: number; logCount: number } | { type: "too_large" };

/**
 * Adaptive `eth_getLogs` range: halve when the node refuses the range or the response is too big,
 * halve when slow, double when fast and small, otherwise keep. Always within [min, max].
 */
export function nextChunkSize(current: number, outcome: ChunkOutcome, policy: ChunkPolicy): number {
  const clamp = (n: number) => Math.max(policy.min, Math.min(policy.max, Math.floor(n)));
  if (outcome.type === "too_large") return clamp(current / 2);
  if (outcome.elapsedMs > policy.targetMs || outcome.logCount > policy.maxLogs) return clamp(current / 2);
  if (outcome.elapsedMs < policy.targetMs / 2 && outcome.logCount < policy.maxLogs / 2) return clamp(current * 2);
  return clamp(current);
}
