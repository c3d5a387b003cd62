import { UnknownMethodologyError } from "../errors.ts";

/**
 * Matcher versions. A version names a fixed set of rules (docs/methodology.md); a change to the rules
 * that can change any row is a new version, and `rematch` re-derives rows under it from raw logs.
 */
export const METHODOLOGY_VERSIONS = ["v0.1", "v0.2", "v0.3"] as const;
export type MethodologyVersion = (typeof METHODOLOGY_VERSIONS)[number];
/** The version library calls use when none is given (matchLogs, createIndexer): v0.1, so existing callers' rows stay reproducible. */
export const CURRENT_METHODOLOGY_VERSION: MethodologyVersion = "v0.1";
/**
 * The default of `METHODOLOGY_VERSION` (indexer, API, worker) for a new install: v0.3, v0.2's rules plus MPP charges
 * attributed by serverId and sessions read from the escrows' events (docs/methodology.md). v0.1 and v0.2 stay
 * selectable with METHODOLOGY_VERSION.
 */
export const DEFAULT_METHODOLOGY_VERSION: MethodologyVersion = "v0.3";

export function assertMethodologyVersion(version: string): asserts version is MethodologyVersion {
  if (!(METHODOLOGY_VERSIONS as readonly string[]).includes(version)) throw new UnknownMethodologyError(version, METHODOLOGY_VERSIONS);
}
