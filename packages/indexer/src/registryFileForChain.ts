/** The registry file each known chain loads when REGISTRY_FILE is unset (docs/registry.md, "Chain-id defaults"). */
export const DEFAULT_REGISTRY_FILES: Readonly<Record<number, string>> = Object.freeze({
  4217: "registry/mainnet.json", // Tempo mainnet
  42431: "registry/testnet.json", // Tempo testnet Moderato
  31337: "registry/demo.json", // the local devnet (anvil)
});

/**
 * The registry file to load: REGISTRY_FILE when set (it always wins), else the default of the chain the RPC serves.
 * Throws for an unknown chain without REGISTRY_FILE, naming the known ones.
 */
export function registryFileForChain(chainId: number, registryFile: string | undefined): string {
  if (registryFile) return registryFile;
  const file = DEFAULT_REGISTRY_FILES[chainId];
  if (file) return file;
  const known = Object.entries(DEFAULT_REGISTRY_FILES)
    .map(([id, f]) => `${id} → ${f}`)
    .join(", ");
  throw new Error(`chain ${chainId} has no default registry file (${known}): set REGISTRY_FILE`);
}
