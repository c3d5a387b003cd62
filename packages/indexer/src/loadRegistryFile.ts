import fs from "node:fs/promises";
import path from "node:path";
import { parseRegistry, type Registry } from "@agent-ledger/core";

/** Reads and validates a registry JSON file. `source` is the path relative to the working directory. */
export async function loadRegistryFile(file: string): Promise<{ registry: Registry; source: string }> {
  const text = await fs.readFile(file, "utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  return { registry: parseRegistry(json), source: `registry:${path.basename(file)}` };
}
