import type { Principal } from "../auth/authenticate.ts";
import {
  BEARER,
  dateTime,
  filters,
  HBODY,
  hErr,
  int,
  jsonBody,
  obj,
  ok,
  open,
  orNull,
  pathParam,
  query,
  ref,
  str,
  subscriptionId,
  subscriptionWith,
  webhookSchemas,
} from "../routes/openapiParts.ts";
import type { JsonRoute, RouteRequest } from "../routes/Route.ts";
import { WEBHOOK_SURFACE } from "../routes/surfaces.ts";
import type { WebhookService } from "./createWebhookService.ts";
import { CREATE_WEBHOOK_BODY, DELIVERIES_QUERY, type DeliveryPage, RECOVER_WEBHOOK_BODY, VERIFY_WEBHOOK_BODY } from "./webhookInputs.ts";

/** What the webhook handlers need. */
export interface WebhookDeps {
  service: WebhookService;
}

type WebhookRoute = JsonRoute<WebhookDeps>;
/** What a handler gets: the body and query its route's `input` declared, parsed (webhookInputs.ts). */
type Req<Body, Query = URLSearchParams> = RouteRequest<Body, Query>;

/** The caller's user id (every route but verify requires a principal: the router authenticated it). */
const owner = (principal: Principal | null) => principal!.userId;

/**
 * The webhook subscription API (spec §4 Webhooks, docs/webhooks.md), authenticated per spec §5 (a paired session's
 * bearer token or the passkey session cookie; verify also without credentials), each route with its OpenAPI Operation.
 */
export const WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  {
    method: "POST",
    path: "/api/webhooks",
    auth: "either",
    input: { body: CREATE_WEBHOOK_BODY },
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, body }: Req<Record<string, unknown>>, { service }) => ({ status: 201, body: await service.create(owner(principal), body) }),
    openapi: {
      operationId: "createWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Subscribes a callback URL to the rows of one agent (verification handshake first; the signing secret is shown once)",
      requestBody: jsonBody(open({ callback_url: str, label: str, filters }, ["callback_url", "filters"])),
      responses: {
        "201": ok(
          obj({
            ok: { type: "boolean", const: true },
            id: str,
            status: str,
            callback_url: str,
            filters: ref("WebhookFilters"),
            label: orNull(str),
            signing_secret: str,
            verify_token: str,
            verify_token_expires_at: dateTime,
            created_at: dateTime,
          }),
          "Created (pending_verification)",
        ),
        ...hErr([
          ...HBODY,
          "invalid_callback_url",
          "callback_url_forbidden",
          "invalid_filters",
          "unknown_agent",
          "invalid_label",
          "limit_reached",
          "not_configured",
        ]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/webhooks",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal }, { service }) => ({ body: await service.list(owner(principal)) }),
    openapi: {
      operationId: "listWebhooks",
      tags: ["webhooks"],
      security: BEARER,
      summary: "The caller's subscriptions, newest first",
      responses: { "200": ok(obj({ items: { type: "array", items: ref("WebhookSubscription") } })), ...hErr([]) },
    },
  },
  {
    method: "GET",
    path: "/api/webhooks/:id",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ body: await service.get(owner(principal), params.id!) }),
    openapi: {
      operationId: "getWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "One subscription with its delivery counts",
      parameters: [subscriptionId],
      responses: {
        "200": ok({
          type: "object",
          required: ["id", "status", "deliveries"],
          properties: {
            ...webhookSchemas.WebhookSubscription.properties,
            deliveries: obj({ pending: int, retrying: int, succeeded: int, dead: int, total: int }),
          },
          additionalProperties: false,
        }),
        ...hErr(["not_found"]),
      },
    },
  },
  {
    method: "DELETE",
    path: "/api/webhooks/:id",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ body: await service.remove(owner(principal), params.id!) }),
    openapi: {
      operationId: "deleteWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Deletes a subscription (pending deliveries are dropped)",
      parameters: [subscriptionId],
      responses: { "200": ok(obj({ ok: { type: "boolean", const: true }, id: str, status: { type: "string", const: "deleted" } })), ...hErr(["not_found"]) },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/verify",
    auth: "either",
    authOptional: true,
    input: { body: VERIFY_WEBHOOK_BODY },
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params, body }: Req<string>, { service }) => ({ body: await service.verify(principal?.userId ?? null, params.id!, body) }),
    openapi: {
      operationId: "verifyWebhook",
      tags: ["webhooks"],
      security: [{ bearer: [] }, {}],
      summary: "Completes the handshake with the verify_token sent to the callback (the receiver may call it without credentials)",
      parameters: [subscriptionId],
      requestBody: jsonBody(open({ verify_token: str })),
      responses: {
        "200": ok(obj({ ok: { type: "boolean", const: true }, status: { type: "string", const: "active" } })),
        ...hErr([...HBODY, "invalid_verify_token", "verify_token_expired", "invalid_state", "not_found"]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/rotate-secret",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ body: await service.rotateSecret(owner(principal), params.id!) }),
    openapi: {
      operationId: "rotateWebhookSecret",
      tags: ["webhooks"],
      security: BEARER,
      summary: "A new signing secret (the old one stays valid for a grace period)",
      parameters: [subscriptionId],
      responses: { "200": ok(obj({ signing_secret: str })), ...hErr(["not_found", "not_configured"]) },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/pause",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ body: await service.pause(owner(principal), params.id!) }),
    openapi: {
      operationId: "pauseWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Pauses deliveries (new rows are still recorded for resume)",
      parameters: [subscriptionId],
      responses: { "200": ok(subscriptionWith({ type: "object", required: ["ok"] })), ...hErr(["not_found", "invalid_state"]) },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/resume",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ body: await service.resume(owner(principal), params.id!) }),
    openapi: {
      operationId: "resumeWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Resumes a paused or disabled subscription",
      parameters: [subscriptionId],
      responses: { "200": ok(subscriptionWith({ type: "object", required: ["ok"] })), ...hErr(["not_found", "invalid_state"]) },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/recover",
    auth: "either",
    input: { body: RECOVER_WEBHOOK_BODY },
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params, body }: Req<Record<string, unknown>>, { service }) => ({
      status: 202,
      body: await service.recover(owner(principal), params.id!, body),
    }),
    openapi: {
      operationId: "recoverWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Re-creates deliveries for matching rows since a time (bounded look-back)",
      parameters: [subscriptionId],
      requestBody: jsonBody(open({ since: dateTime })),
      responses: {
        "202": ok(
          obj({ ok: { type: "boolean", const: true }, id: str, since: dateTime, matched_events: int, deliveries_created: int }),
          "Accepted: deliveries queued",
        ),
        ...hErr([...HBODY, "invalid_since", "since_too_old", "invalid_state", "not_found"]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/test",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ status: 202, body: await service.test(owner(principal), params.id!) }),
    openapi: {
      operationId: "testWebhook",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Queues a signed test delivery",
      parameters: [subscriptionId],
      responses: {
        "202": ok(obj({ ok: { type: "boolean", const: true }, delivery_id: str, delivery: ref("WebhookDelivery") }), "Accepted: test delivery queued"),
        ...hErr(["not_found", "invalid_state"]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/webhooks/:id/deliveries",
    auth: "either",
    input: { query: DELIVERIES_QUERY },
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params, query }: Req<undefined, DeliveryPage>, { service }) => ({
      body: await service.listDeliveries(owner(principal), params.id!, query),
    }),
    openapi: {
      operationId: "listWebhookDeliveries",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Deliveries of a subscription, newest first, keyset pages",
      parameters: [
        subscriptionId,
        query("cursor", str, "next_cursor of the previous page"),
        query("limit", { type: "integer", minimum: 1, maximum: 100 }),
        query("status", str, "pending | retrying | succeeded | dead"),
      ],
      responses: {
        "200": ok(obj({ items: { type: "array", items: ref("WebhookDelivery") }, next_cursor: { type: ["string", "null"] } })),
        ...hErr(["not_found", "invalid_cursor", "invalid_limit", "invalid_query"]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/deliveries/:deliveryId/redeliver",
    auth: "either",
    surface: WEBHOOK_SURFACE,
    handle: async ({ principal, params }, { service }) => ({ status: 202, body: await service.redeliver(owner(principal), params.id!, params.deliveryId!) }),
    openapi: {
      operationId: "redeliverWebhookDelivery",
      tags: ["webhooks"],
      security: BEARER,
      summary: "Sends a dead (or failed) delivery again",
      parameters: [subscriptionId, pathParam("deliveryId", str, "delivery id (uuid)")],
      responses: {
        "202": ok(obj({ ok: { type: "boolean", const: true }, delivery: ref("WebhookDelivery") }), "Accepted: queued again"),
        ...hErr(["not_found", "delivery_succeeded", "invalid_state"]),
      },
    },
  },
];
