import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { answerInvalidParams } from "./answerInvalidParams.ts";
import { createApiCaller, type ApiCallerOptions } from "./createApiCaller.ts";
import { registerLedgerTools } from "./registerLedgerTools.ts";
import { registerResources } from "./registerResources.ts";
import { registerWalletTools, type WalletToolOptions } from "./registerWalletTools.ts";
import { registerWebhookTools } from "./registerWebhookTools.ts";

export const SERVER_NAME = "agent-ledger";
export const SERVER_VERSION = "0.1.0";

export interface LedgerMcpServerOptions {
  /** Where and how the tools call the API (base URL, fetch, the paired session's bearer token). */
  api: ApiCallerOptions;
  /** How to get a paired session on this host (shown with 401 refusals). */
  authHint: string;
  wallet?: WalletToolOptions;
}

const INSTRUCTIONS =
  "Agent Ledger: a public ledger of what autonomous AI agents and paid services do on the Tempo payments chain, and a capped wallet. " +
  "Ledger tools (get_dashboard, search, get_service, get_agent, get_event, list_recent_events, list_events_since, get_provider) need no credentials. " +
  "Wallet tools (wallet_status, pay, list_payments) and webhook tools need a wallet session a person paired and capped; " +
  "check wallet_status before paying, pass an idempotency_key to pay and re-use it to retry (a payment cannot be undone). " +
  "Amounts in answers are base-unit decimal strings; byToken lists give each token's symbol and decimals. Tool errors carry the API's code and HTTP status. " +
  "The resources agent-ledger://docs/methodology and agent-ledger://registry describe how rows are derived and what is watched; " +
  "agent-ledger://entities/{id} and agent-ledger://events/{id} read one entity or one row.";

/**
 * The Agent Ledger MCP server: every tool and resource, defined once; each does its work through the public HTTP API
 * (`options.api`), so the API's rules and error codes apply unchanged. Connect it to a transport (stdio in the CLI,
 * Streamable HTTP in the API).
 */
export function createLedgerMcpServer(options: LedgerMcpServerOptions): McpServer {
  const api = createApiCaller(options.api);
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions: INSTRUCTIONS });
  const ctx = { authHint: options.authHint, hasBearer: api.hasBearer };
  registerLedgerTools(server, api, ctx);
  registerWalletTools(server, api, ctx, options.wallet);
  registerWebhookTools(server, api, ctx);
  registerResources(server, api);
  // Stateless and fixed: the lists never change while a client is connected, and no notification is ever sent, so
  // none is advertised (the SDK sets listChanged when the first tool or resource is registered).
  const capabilities = (server.server as unknown as { getCapabilities(): ServerCapabilities }).getCapabilities();
  delete capabilities.tools?.listChanged;
  delete capabilities.resources?.listChanged;
  answerInvalidParams(server.server);
  return server;
}
