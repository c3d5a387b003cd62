/**
 * Methodology v0.2 counts only allowlisted tokens (docs/methodology.md, rule 1): with a registry that lists none it
 * would silently match nothing. Throws a message that says what to do; other versions need no tokens.
 */
export function assertRegistryFits(version: string, tokenCount: number): void {
  if (version !== "v0.1" && tokenCount === 0) {
    throw new Error(
      `methodology ${version} counts only allowlisted tokens and the registry lists none: add \`tokens\` (registry_version 2) to REGISTRY_FILE, or set METHODOLOGY_VERSION=v0.1`,
    );
  }
}
