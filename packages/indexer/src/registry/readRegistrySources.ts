import fs from "node:fs/promises";
import path from "node:path";
import type { RegistrySources } from "./buildRegistries.ts";

/** The committed source data of the generated registries (registry/sources/, docs/registry.md), parsed. */
export async function readRegistrySources(dir: string): Promise<RegistrySources> {
  const read = async (name: string): Promise<never> => {
    const file = path.join(dir, name);
    try {
      return JSON.parse(await fs.readFile(file, "utf8")) as never;
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`);
    }
  };
  const [tokenList, services, mainnetFacts, testnetFacts] = await Promise.all([
    read("tokens-4217.json"),
    read("mpp-services.json"),
    read("mainnet-facts.json"),
    read("testnet-facts.json"),
  ]);
  return { tokenList, services, mainnetFacts, testnetFacts };
}
