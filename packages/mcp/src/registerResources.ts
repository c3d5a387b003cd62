import { readFile } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ApiCaller } from "./createApiCaller.ts";
import { REGISTRY } from "./ledgerDocuments.ts";

export const METHODOLOGY_URI = "agent-ledger://docs/methodology";
export const REGISTRY_URI = "agent-ledger://registry";

/**
 * The methodology document ships with the code (decided): it is the repository's docs/methodology.md, read from the
 * files this package runs from, so it always describes the code that derived the rows (its `version` sections name
 * which methodology versions exist; `get_event` shows a row's version). No extra API path is needed for it.
 */
const METHODOLOGY_FILE = new URL("../../../docs/methodology.md", import.meta.url);

let methodology: Promise<string> | null = null;
export function readMethodology(): Promise<string> {
  methodology ??= readFile(METHODOLOGY_FILE, "utf8").catch((error) => {
    methodology = null;
    throw error;
  });
  return methodology;
}

/** Resources: the methodology (markdown) and the registry of watched entities (JSON, live from the API). */
export function registerResources(server: McpServer, api: ApiCaller): void {
  server.registerResource("methodology", METHODOLOGY_URI, {
    title: "Ledger methodology",
    description: "How the ledger rows are derived from Tempo chain logs: which transfers count, payment kinds, gateway attribution (Pattern A escrow settlements, Pattern B memo fingerprints), fees, versions. Read it before interpreting amounts or counts.",
    mimeType: "text/markdown",
  }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: await readMethodology() }] }));

  server.registerResource("registry", REGISTRY_URI, {
    title: "Watched entities",
    description: "Every watched service (id ends in -mpp) and agent of the ledger: id, label, category, kind, active, wallets — as the API serves them now.",
    mimeType: "application/json",
  }, async (uri) => {
    const data = await api.graphql<{ services: unknown[]; agents: unknown[] }>(REGISTRY);
    return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ services: data.services, agents: data.agents }, null, 2) }] };
  });
}
