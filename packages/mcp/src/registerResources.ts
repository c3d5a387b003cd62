import { readFile } from "node:fs/promises";
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { RESOURCE_NOT_FOUND } from "./answerInvalidParams.ts";
import { ApiCallError, type ApiCaller } from "./createApiCaller.ts";
import { ENTITY, EVENT, REGISTRY } from "./ledgerDocuments.ts";
import { statusOf } from "./toolResult.ts";

export const METHODOLOGY_URI = "agent-ledger://docs/methodology";
export const REGISTRY_URI = "agent-ledger://registry";
export const ENTITY_URI_TEMPLATE = "agent-ledger://entities/{id}";
export const EVENT_URI_TEMPLATE = "agent-ledger://events/{id}";

/**
 * A read refused by the API as the JSON-RPC error of resources/read: not found -32002, other 4xx -32602, else -32603;
 * `data` has the URI and the API's code and status. A template id that is not percent-encoded text is -32602 before
 * any call. A plain error with `code` and `data`: the SDK sends them as they are (an McpError's message would carry an
 * "MCP error …:" prefix).
 */
function resourceError(error: unknown, uri: string): Error {
  if (error instanceof URIError)
    return Object.assign(new Error(`invalid params of resources/read: ${uri} is not percent-encoded text`), { code: ErrorCode.InvalidParams, data: { uri } });
  if (!(error instanceof ApiCallError))
    return Object.assign(new Error(error instanceof Error ? error.message : String(error)), { code: ErrorCode.InternalError });
  const status = statusOf(error.code, error.status) ?? error.status;
  const rpc = status === 404 ? RESOURCE_NOT_FOUND : status >= 400 && status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return Object.assign(new Error(error.message), { code: rpc, data: { uri, code: error.code, status } });
}

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

/**
 * Resources: the methodology (markdown), the registry of watched entities (JSON, live from the API), and two templates:
 * one entity (service or agent, as get_service / get_agent answer it) and one ledger row (as get_event answers it).
 */
export function registerResources(server: McpServer, api: ApiCaller): void {
  server.registerResource(
    "methodology",
    METHODOLOGY_URI,
    {
      title: "Ledger methodology",
      description:
        "How the ledger rows are derived from Tempo chain logs: which transfers count, payment kinds, gateway attribution (Pattern A escrow settlements, Pattern B memo fingerprints), fees, versions. Read it before interpreting amounts or counts.",
      mimeType: "text/markdown",
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: await readMethodology() }] }),
  );

  server.registerResource(
    "registry",
    REGISTRY_URI,
    {
      title: "Watched entities",
      description: "Every watched service (id ends in -mpp) and agent of the ledger: id, label, category, kind, active, wallets — as the API serves them now.",
      mimeType: "application/json",
    },
    async (uri) => {
      try {
        const data = await api.graphql<{ services: unknown[]; agents: unknown[] }>(REGISTRY);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ services: data.services, agents: data.agents }, null, 2) }] };
      } catch (error) {
        throw resourceError(error, uri.href);
      }
    },
  );

  const json = (uri: URL, value: unknown) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(value, null, 2) }] });
  const one = (variables: Record<string, string | string[]>) => String(Array.isArray(variables.id) ? variables.id[0] : variables.id);

  server.registerResource(
    "entity",
    new ResourceTemplate(ENTITY_URI_TEMPLATE, { list: undefined }),
    {
      title: "A watched service or agent",
      description:
        "One watched service or agent by id (agent-ledger://entities/weather-api-mpp): as get_service / get_agent answer it, with its 20 newest rows. Ids: the registry resource.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      try {
        const id = decodeURIComponent(one(variables));
        const data = await api.graphql<{ service: unknown; agent: unknown }>(ENTITY, { id, events: 20, providers: 20 });
        const entity = data.service ?? data.agent;
        if (!entity) throw new ApiCallError(404, "not_found", `no service or agent with id "${id}"`);
        return json(uri, entity);
      } catch (error) {
        throw resourceError(error, uri.href);
      }
    },
  );

  server.registerResource(
    "event",
    new ResourceTemplate(EVENT_URI_TEMPLATE, { list: undefined }),
    {
      title: "A ledger row",
      description:
        "One ledger row by id (agent-ledger://events/4128): as get_event answers it, with the other rows of its transaction and a session row's channel.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      try {
        const id = decodeURIComponent(one(variables));
        const data = await api.graphql<{ event: unknown }>(EVENT, { id });
        if (!data.event) throw new ApiCallError(404, "not_found", `no ledger row with id ${id}`);
        return json(uri, data.event);
      } catch (error) {
        throw resourceError(error, uri.href);
      }
    },
  );
}
