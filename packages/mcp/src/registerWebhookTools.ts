import { parseTokenUnits } from "@agent-ledger/core/parseTokenUnits";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ApiCaller } from "./createApiCaller.ts";
import { DeliveryList, Webhook, WebhookCreated, WebhookDeleted, WebhookList } from "./schemas.ts";
import { fail, failFrom, ok, type FailContext } from "./toolResult.ts";

const webhookId = z.string().min(1).max(100).describe("subscription id (whs_…)");
const address = (what: string) => z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x + 40 hex digits").optional().describe(what);

/** Webhook tools (a paired session's bearer token): list, create, pause, resume, delete, deliveries. */
export function registerWebhookTools(server: McpServer, api: ApiCaller, ctx: FailContext): void {
  const run = async (work: () => Promise<Record<string, unknown>>) => {
    try {
      return ok(await work());
    } catch (error) {
      return failFrom(error, ctx);
    }
  };
  const enc = encodeURIComponent;

  server.registerTool("list_webhooks", {
    title: "Your webhooks",
    description: "Your webhook subscriptions (not deleted), newest first: status (pending_verify, active, paused, disabled_by_failures), callback URL, label and filters. Needs a paired session.",
    inputSchema: {},
    outputSchema: WebhookList,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, () => run(async () => (await api.rest<Record<string, unknown>>("GET", "/api/webhooks", { auth: true })).body));

  server.registerTool("create_webhook", {
    title: "Create a webhook",
    description:
      "Subscribe a callback URL to new ledger rows of one watched agent or service (optionally only rows to a recipient, routed to a provider, of a token, or of at least an amount). " +
      "Every matching row is POSTed to the URL, signed with the signing_secret returned here (shown once: keep it). The subscription starts pending_verify: " +
      "the receiver gets a verification request carrying verify_token and activates it by echoing it (docs/webhooks.md). At most 25 per user. Needs a paired session.",
    inputSchema: {
      callback_url: z.string().min(1).max(2048).describe("https URL of your receiver (http://localhost only outside production)"),
      agent_id: z.string().min(1).max(200).describe("the watched agent or service id whose rows to send"),
      label: z.string().max(200).optional().describe("a free-text label"),
      recipient_address: address("only rows whose counterparty is this address"),
      routed_to_address: address("only gateway rows routed to this provider address"),
      token_address: address("only rows of this token"),
      min_amount: z.string().min(1).max(100).optional().describe("only rows of at least this many tokens, e.g. \"5\" (converted exactly to base units)"),
    },
    outputSchema: WebhookCreated,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, async (a) => {
    const filters: Record<string, string> = { agent_id: a.agent_id };
    if (a.recipient_address) filters.recipient_address = a.recipient_address.toLowerCase();
    if (a.routed_to_address) filters.routed_to_address = a.routed_to_address.toLowerCase();
    if (a.token_address) filters.token_address = a.token_address.toLowerCase();
    if (a.min_amount !== undefined) {
      try {
        filters.min_amount_wei = parseTokenUnits(a.min_amount).toString();
      } catch (error) {
        return fail("invalid_amount", (error as Error).message);
      }
    }
    const body: Record<string, unknown> = { callback_url: a.callback_url, filters };
    if (a.label !== undefined) body.label = a.label;
    return run(async () => (await api.rest<Record<string, unknown>>("POST", "/api/webhooks", { auth: true, body })).body);
  });

  const action = (name: "pause_webhook" | "resume_webhook", verb: "pause" | "resume", description: string) =>
    server.registerTool(name, {
      title: `${verb[0]!.toUpperCase()}${verb.slice(1)} a webhook`,
      description,
      inputSchema: { id: webhookId },
      outputSchema: Webhook,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    }, ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/${verb}`, { auth: true, body: {} })).body));
  action("pause_webhook", "pause", "Pause deliveries of one of your webhooks (matching rows are still recorded and wait until resume). Needs a paired session.");
  action("resume_webhook", "resume", "Re-arm a paused or disabled_by_failures webhook: back to active, failures reset, held deliveries go out. Needs a paired session.");

  server.registerTool("delete_webhook", {
    title: "Delete a webhook",
    description: "Delete one of your webhooks (no further deliveries; it disappears from list_webhooks). Needs a paired session.",
    inputSchema: { id: webhookId },
    outputSchema: WebhookDeleted,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  }, ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("DELETE", `/api/webhooks/${enc(id)}`, { auth: true })).body));

  server.registerTool("list_deliveries", {
    title: "Webhook deliveries",
    description:
      "The delivery log of one of your webhooks, newest first: type (event, verify, test), status (pending, retrying, succeeded, dead), attempts, last HTTP status and error. " +
      "Pass next_cursor as cursor for older ones. Needs a paired session.",
    inputSchema: {
      id: webhookId,
      limit: z.number().int().min(1).max(200).optional().describe("page size (default 50)"),
      cursor: z.string().min(1).max(500).optional().describe("next_cursor of a previous page"),
    },
    outputSchema: DeliveryList,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, ({ id, limit, cursor }) => run(async () => (await api.rest<Record<string, unknown>>("GET", `/api/webhooks/${enc(id)}/deliveries`, {
    auth: true, query: { limit: limit === undefined ? undefined : String(limit), cursor },
  })).body));
}
