/**
 * A registry v3 file names its chain (`chain_id`); loading it for another chain would watch the wrong addresses, so the
 * indexer refuses. A file without `chain_id` (v1/v2, or v3 without it) is not checked.
 */
export function assertRegistryChain(registryChainId: number | null, chainId: number, file: string): void {
  if (registryChainId !== null && registryChainId !== chainId) {
    throw new Error(
      `${file} is the registry of chain ${registryChainId}, but the RPC serves chain ${chainId}: unset REGISTRY_FILE to use chain ${chainId}'s default, or name its registry`,
    );
  }
}
