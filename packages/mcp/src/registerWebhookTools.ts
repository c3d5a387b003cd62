import { parseTokenUnits } from "@agent-ledger/core/parseTokenUnits";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ApiCaller } from "./createApiCaller.ts";
import {
  DeliveryList,
  DeliveryQueued,
  RecoverResult,
  Webhook,
  WebhookCreated,
  WebhookDeleted,
  WebhookDetail,
  WebhookList,
  WebhookSecret,
  WebhookVerified,
} from "./schemas.ts";
import { fail, failFrom, ok, type FailContext } from "./toolResult.ts";

const webhookId = z.string().min(1).max(100).describe("subscription id (whs_…)");
const address = (what: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x + 40 hex digits")
    .optional()
    .describe(what);

/**
 * Webhook tools (a paired session's bearer token), one per endpoint of /api/webhooks (docs/webhooks.md): list, show,
 * create, verify, rotate the secret, pause, resume, delete, test, deliveries, redeliver, recover.
 */
export function registerWebhookTools(server: McpServer, api: ApiCaller, ctx: FailContext): void {
  const run = async (work: () => Promise<Record<string, unknown>>) => {
    try {
      return ok(await work());
    } catch (error) {
      return failFrom(error, ctx);
    }
  };
  const enc = encodeURIComponent;

  server.registerTool(
    "list_webhooks",
    {
      title: "Your webhooks",
      description:
        "Your webhook subscriptions (not deleted), newest first: status (pending_verify, active, paused, disabled_by_failures), callback URL, label and filters. Needs a paired session.",
      inputSchema: {},
      outputSchema: WebhookList,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => run(async () => (await api.rest<Record<string, unknown>>("GET", "/api/webhooks", { auth: true })).body),
  );

  server.registerTool(
    "create_webhook",
    {
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
        min_amount: z.string().min(1).max(100).optional().describe('only rows of at least this many tokens, e.g. "5" (converted exactly to base units)'),
      },
      outputSchema: WebhookCreated,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (a) => {
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
    },
  );

  const action = (name: "pause_webhook" | "resume_webhook", verb: "pause" | "resume", description: string) =>
    server.registerTool(
      name,
      {
        title: `${verb[0]!.toUpperCase()}${verb.slice(1)} a webhook`,
        description,
        inputSchema: { id: webhookId },
        outputSchema: Webhook,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/${verb}`, { auth: true, body: {} })).body),
    );
  action(
    "pause_webhook",
    "pause",
    "Pause deliveries of one of your webhooks (matching rows are still recorded and wait until resume). Needs a paired session.",
  );
  action(
    "resume_webhook",
    "resume",
    "Re-arm a paused or disabled_by_failures webhook: back to active, failures reset, held deliveries go out. Needs a paired session.",
  );

  server.registerTool(
    "delete_webhook",
    {
      title: "Delete a webhook",
      description: "Delete one of your webhooks (no further deliveries; it disappears from list_webhooks). Needs a paired session.",
      inputSchema: { id: webhookId },
      outputSchema: WebhookDeleted,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("DELETE", `/api/webhooks/${enc(id)}`, { auth: true })).body),
  );

  server.registerTool(
    "list_deliveries",
    {
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
    },
    ({ id, limit, cursor }) =>
      run(
        async () =>
          (
            await api.rest<Record<string, unknown>>("GET", `/api/webhooks/${enc(id)}/deliveries`, {
              auth: true,
              query: { limit: limit === undefined ? undefined : String(limit), cursor },
            })
          ).body,
      ),
  );

  server.registerTool(
    "get_webhook",
    {
      title: "One webhook",
      description:
        "One of your webhook subscriptions: status, callback URL, label, filters, failures, and its delivery counts by status. Needs a paired session.",
      inputSchema: { id: webhookId },
      outputSchema: WebhookDetail,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("GET", `/api/webhooks/${enc(id)}`, { auth: true })).body),
  );

  server.registerTool(
    "verify_webhook",
    {
      title: "Verify a webhook",
      description:
        "Activate a pending_verify subscription with the verify_token that create_webhook returned (and that the verification request carried to the receiver): " +
        "pending_verify → active. Normally the receiver does this itself; use it when you hold the token. Wrong token: invalid_verify_token; after 24 h: verify_token_expired.",
      inputSchema: { id: webhookId, verify_token: z.string().min(1).max(200).describe("the verify_token of create_webhook") },
      outputSchema: WebhookVerified,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ id, verify_token }) =>
      run(async () => (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/verify`, { auth: true, body: { verify_token } })).body),
  );

  server.registerTool(
    "rotate_webhook_secret",
    {
      title: "Rotate a webhook's signing secret",
      description:
        "Replace the signing secret of one of your webhooks: the new secret is returned once (store it); hard cutover — the old one stops signing at once, " +
        "so your receiver must switch to the new secret now. Needs a paired session.",
      inputSchema: { id: webhookId },
      outputSchema: WebhookSecret,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/rotate-secret`, { auth: true, body: {} })).body),
  );

  server.registerTool(
    "test_webhook",
    {
      title: "Send a test event",
      description:
        "Send a signed svc.webhook.test event to an active webhook's callback, through the normal delivery path (it shows in list_deliveries). Needs a paired session.",
      inputSchema: { id: webhookId },
      outputSchema: DeliveryQueued,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ id }) => run(async () => (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/test`, { auth: true, body: {} })).body),
  );

  server.registerTool(
    "redeliver_webhook_delivery",
    {
      title: "Redeliver a delivery",
      description:
        "One more attempt now for one delivery of your webhook (same delivery id, so the receiver can deduplicate): a pending, retrying or dead delivery; " +
        "one that already got a 2xx is delivery_succeeded. Take delivery_id from list_deliveries. Needs a paired session.",
      inputSchema: { id: webhookId, delivery_id: z.string().min(1).max(100).describe("the delivery's id (from list_deliveries)") },
      outputSchema: DeliveryQueued,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ id, delivery_id }) =>
      run(
        async () =>
          (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/deliveries/${enc(delivery_id)}/redeliver`, { auth: true, body: {} })).body,
      ),
  );

  server.registerTool(
    "recover_webhook",
    {
      title: "Recover missed rows",
      description:
        "Deliver the matching ledger rows recorded since a time (ISO 8601 with an offset, at most 7 days ago) that this active webhook has no delivery for yet " +
        "(e.g. after your receiver was down); never doubles a delivery. Needs a paired session.",
      inputSchema: { id: webhookId, since: z.string().min(1).max(100).describe("ISO 8601 date-time with an offset, e.g. 2026-11-25T03:00:00Z") },
      outputSchema: RecoverResult,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ id, since }) =>
      run(async () => (await api.rest<Record<string, unknown>>("POST", `/api/webhooks/${enc(id)}/recover`, { auth: true, body: { since } })).body),
  );
}
