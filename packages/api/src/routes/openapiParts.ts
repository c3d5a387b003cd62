// The parts OpenAPI fragments are written with (helpers, the wallet's and webhooks' component schemas, the security
// schemes and the answers every operation can give). Each route declares its own Operation beside its handler;
// routes/buildOpenApiDocument.ts assembles them into the one document served at /api/openapi.json.
import { ERROR_STATUS, type ErrorCode } from "../errors.ts";
import { SUBSCRIPTION_STATUSES } from "@agent-ledger/core";

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const str = { type: "string" };
export const int = { type: "integer", minimum: 0 };
export const bool = { type: "boolean" };
export const uint256 = { type: "string", pattern: "^(0|[1-9][0-9]*)$", description: "uint256 as a decimal string (token base units)" };
export const address = { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" };
export const txHash = { type: "string", pattern: "^0x[0-9a-f]{64}$" };
export const dateTime = { type: "string", format: "date-time" };
export const uuid = { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" };
export const orNull = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, "null"] });
export const obj = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});
/** An object whose listed fields are required and typed; others may be added later (request bodies, WebAuthn JSON). */
export const open = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({ type: "object", required, properties });

/** The error responses of an operation: one per status (the one table, errors.ts), each listing the codes it can carry. */
export function errors(codes: readonly ErrorCode[], descriptions: Record<string, string> = {}) {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: descriptions[status] ?? list.join(", "),
          content: { "application/json": { schema: errorSchema(list) } },
        },
      ]),
  );
}
/**
 * Answers every operation can give whatever its handler: 431 request_header_too_large (Node's parser, before any
 * handler: http/answerClientError.ts), 400 duplicate_authorization (two Authorization headers:
 * auth/checkDuplicateAuthorization.ts) and, on a state-changing method, 403 cross_site_request (a request carrying the
 * session cookie without our Origin: auth/checkRequestOrigin.ts); both checked in buildApp before routing.
 */
export function addCommonErrors(paths: Record<string, Record<string, { responses: Record<string, unknown> }>>): void {
  type ErrorResponse = {
    description: string;
    content: { "application/json": { schema: { properties?: { error: { properties: { code: { enum: string[] } } } } } } };
  };
  /** `code` added to the operation's response of its status (created when absent; its description kept). */
  const addCode = (op: { responses: Record<string, unknown> }, code: ErrorCode) => {
    const status = String(ERROR_STATUS[code]);
    const existing = op.responses[status] as ErrorResponse | undefined;
    if (!existing) return void (op.responses[status] = errors([code])[status]);
    // the read paths' responses refer to the Error schema, which allows every code: only the description names it
    const codes = existing.content["application/json"].schema.properties?.error.properties.code.enum;
    if (!codes) return void (op.responses[status] = { ...existing, description: `${existing.description}; ${code}` });
    if (!codes.includes(code)) op.responses[status] = { ...errors([...(codes as ErrorCode[]), code])[status], description: `${existing.description}; ${code}` };
  };
  for (const item of Object.values(paths)) {
    for (const [method, op] of Object.entries(item)) {
      addCode(op, "request_header_too_large");
      addCode(op, "duplicate_authorization");
      if (method === "get" || method === "head") continue;
      addCode(op, "cross_site_request");
    }
  }
}
export const errorSchema = (codes: readonly string[]) => obj({ error: obj({ code: { type: "string", enum: [...codes] }, message: str }) });

export const ok = (schema: unknown, description = "OK", headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema } },
});
export const jsonBody = (schema: unknown, required = true) => ({ required, content: { "application/json": { schema } } });
export const pathParam = (name: string, schema: Record<string, unknown> = str, description?: string) => ({
  name,
  in: "path",
  required: true,
  ...(description ? { description } : {}),
  schema,
});
export const query = (name: string, schema: Record<string, unknown>, description?: string, required = false) => ({
  name,
  in: "query",
  required,
  ...(description ? { description } : {}),
  schema,
});

export const BEARER = [{ bearer: [] }];
export const COOKIE = [{ cookie: [] }];
export const NONE: never[] = [];

// ---------------------------------------------------------------------------------------------------------------
// Wallet (docs/wallet.md)

export type W = ErrorCode;
export const wErr = (codes: W[]) => errors(["method_not_allowed", ...codes]);
/** A JSON body: the body reader's refusals. */
export const BODY: W[] = ["invalid_body", "payload_too_large", "unsupported_media_type"];
/** A passkey session cookie (al_session); state-changing requests must also come from our origin. */
export const COOKIE_READ: W[] = ["unauthorized"];
export const COOKIE_WRITE: W[] = ["unauthorized", "cross_site_request"];
/** A device bearer token (alt_…). */
export const BEARER_AUTH: W[] = ["unauthorized", "session_expired", "session_revoked"];
/** Per-client-address rate limits in Redis. */
export const LIMITED: W[] = ["rate_limited", "rate_limit_unavailable"];

const walletSchemas = {
  WalletUser: obj({ user_id: uuid, managed_address: address, credential_id: str, public_key_uncompressed: str }),
  WalletSession: obj({
    session_id: uuid,
    status: { type: "string", enum: ["active", "expired", "revoked", "not_authorized"] },
    agent_label: orNull(str),
    agent_key_address: address,
    managed_address: address,
    token: address,
    spend_cap_wei: uint256,
    per_call_cap_wei: uint256,
    spend_used_wei: uint256,
    spend_reserved_wei: uint256,
    spend_remaining_wei: uint256,
    expires_at: dateTime,
    revoked_at: orNull(dateTime),
    on_chain_authorized_at: orNull(dateTime),
    authorize_tx_hash: orNull(txHash),
    created_at: dateTime,
  }),
  OwnerSession: open({
    session_id: uuid,
    agent_label: orNull(str),
    agent_key_address: address,
    token: address,
    status: { type: "string", enum: ["active", "expired", "revoked", "pending"] },
    created_at: dateTime,
    expires_at: dateTime,
    spend_cap_wei: uint256,
    per_call_cap_wei: uint256,
    spend_used_wei: uint256,
    spend_reserved_wei: uint256,
    spend_remaining_wei: uint256,
    on_chain_authorized_at: orNull(dateTime),
    authorize_tx_hash: orNull(txHash),
    revoked_at: orNull(dateTime),
    revoked_by: { type: ["string", "null"] },
    chain_revoke: { type: "object" },
    payments_count: int,
    last_payment: { type: ["object", "null"] },
  }),
  PaymentResult: obj({
    tx_hash: txHash,
    explorer_url: orNull(str),
    from: address,
    to: address,
    amount_wei: uint256,
    memo: orNull(str),
    token: address,
    spend_used_wei_after: uint256,
    spend_cap_wei: uint256,
  }),
  PaymentPending: obj({
    status: { type: "string", const: "pending" },
    code: { type: "string", const: "payment_pending" },
    message: str,
    tx_hash: orNull(txHash),
    explorer_url: orNull(str),
    valid_before: orNull(dateTime),
    from: address,
    to: address,
    amount_wei: uint256,
    memo: orNull(str),
    token: address,
  }),
  WalletPayment: obj({
    id: uuid,
    status: { type: "string", enum: ["reserved", "sent", "failed"] },
    to: address,
    amount_wei: uint256,
    token: address,
    memo: orNull(str),
    tx_hash: orNull(txHash),
    error: orNull(str),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  ChainRevokeSessions: open({ sessions: { type: "array", items: ref("OwnerSession") } }),
};

export const webauthnCredential = open({ id: str, rawId: str, type: str, response: { type: "object" }, clientExtensionResults: { type: "object" } }, [
  "id",
  "rawId",
  "type",
  "response",
]);

// ---------------------------------------------------------------------------------------------------------------
// Webhooks (docs/webhooks.md)

export type H = ErrorCode;
export const hErr = (codes: H[]) => errors(["method_not_allowed", "unauthorized", "session_expired", "session_revoked", ...codes]);
export const HBODY: H[] = ["invalid_body", "payload_too_large", "unsupported_media_type"];
export const subscriptionId = pathParam("id", str, "subscription id (whs_…)");

export const filters = {
  type: "object",
  additionalProperties: false,
  required: ["agent_id"],
  properties: { agent_id: str, recipient_address: address, routed_to_address: address, min_amount_wei: uint256, token_address: address },
};
export const webhookSchemas = {
  WebhookFilters: filters,
  WebhookSubscription: obj({
    id: str,
    status: { type: "string", enum: [...SUBSCRIPTION_STATUSES] },
    callback_url: str,
    filters: ref("WebhookFilters"),
    label: orNull(str),
    verify_token_expires_at: dateTime,
    created_at: dateTime,
    updated_at: dateTime,
    consecutive_failures: int,
    status_reason: orNull(str),
  }),
  WebhookDelivery: obj({
    id: str,
    event_id: { type: ["integer", "null"] },
    type: { type: "string", enum: ["event", "verify", "test"] },
    status: { type: "string", enum: ["pending", "retrying", "succeeded", "dead"] },
    attempts: int,
    last_http_status: { type: ["integer", "null"] },
    last_error: orNull(str),
    last_response_ms: { type: ["integer", "null"] },
    last_attempt_at: orNull(dateTime),
    next_attempt_at: orNull(dateTime),
    created_at: dateTime,
    updated_at: dateTime,
    completed_at: orNull(dateTime),
    // what the last attempt sent (docs/webhooks.md § Delivery log); null before the first attempt
    last_request_body: orNull(str),
    last_request_headers: { type: ["object", "null"], additionalProperties: str },
  }),
};
export const subscriptionWith = (extra: Record<string, unknown>) => ({ allOf: [ref("WebhookSubscription")], ...extra });

// ---------------------------------------------------------------------------------------------------------------
// Live feed, MCP, operations

export const extraSchemas = { ...walletSchemas, ...webhookSchemas };

/** bearer: a device token (`alt_…`, from device pairing) or a user session token; cookie: the passkey session. */
export const securitySchemes = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "Authorization: Bearer <token> — a device session's alt_… token (wallet pay, webhooks, MCP) (docs/wallet.md)",
  },
  cookie: {
    type: "apiKey",
    in: "cookie",
    name: "al_session",
    description: "The passkey session set by webauthn/*/verify; state-changing requests must come from our own origin (403 cross_site_request)",
  },
};
