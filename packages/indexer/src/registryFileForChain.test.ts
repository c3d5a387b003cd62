import { describe, expect, it } from "vitest";
import { assertRegistryChain } from "./assertRegistryChain.ts";
import { parseIndexerEnv } from "./env.ts";
import { DEFAULT_REGISTRY_FILES, registryFileForChain } from "./registryFileForChain.ts";

describe("registryFileForChain: which registry the indexer loads", () => {
  it("without REGISTRY_FILE: 4217 → mainnet, 42431 → testnet, 31337 → the demo registry", () => {
    expect(registryFileForChain(4217, undefined)).toBe("registry/mainnet.json");
    expect(registryFileForChain(42431, undefined)).toBe("registry/testnet.json");
    expect(registryFileForChain(31337, undefined)).toBe("registry/demo.json");
    // what the environment gives when REGISTRY_FILE is unset or empty
    expect(registryFileForChain(4217, parseIndexerEnv({}).REGISTRY_FILE)).toBe("registry/mainnet.json");
    expect(registryFileForChain(42431, parseIndexerEnv({ REGISTRY_FILE: "" }).REGISTRY_FILE)).toBe("registry/testnet.json");
  });
  it("REGISTRY_FILE always wins, on any chain", () => {
    const env = parseIndexerEnv({ REGISTRY_FILE: "registry/mine.json" });
    for (const chainId of [4217, 42431, 31337, 1]) expect(registryFileForChain(chainId, env.REGISTRY_FILE)).toBe("registry/mine.json");
  });
  it("an unknown chain without REGISTRY_FILE is refused, naming the known defaults", () => {
    expect(() => registryFileForChain(1, undefined)).toThrow(
      "chain 1 has no default registry file (4217 → registry/mainnet.json, 31337 → registry/demo.json, 42431 → registry/testnet.json): set REGISTRY_FILE",
    );
  });
  it("each default file exists in the repository", async () => {
    const fs = await import("node:fs/promises");
    const path = await import("node:path");
    const root = path.resolve(import.meta.dirname, "../../..");
    for (const file of Object.values(DEFAULT_REGISTRY_FILES)) await expect(fs.access(path.join(root, file))).resolves.toBeUndefined();
  });
});

describe("assertRegistryChain", () => {
  it("refuses a v3 registry of another chain; a registry without chain_id is not checked", () => {
    expect(() => assertRegistryChain(4217, 42431, "registry/mainnet.json")).toThrow(
      "registry/mainnet.json is the registry of chain 4217, but the RPC serves chain 42431: unset REGISTRY_FILE to use chain 42431's default, or name its registry",
    );
    expect(() => assertRegistryChain(4217, 4217, "registry/mainnet.json")).not.toThrow();
    expect(() => assertRegistryChain(null, 31337, "registry/demo.json")).not.toThrow();
  });
});
