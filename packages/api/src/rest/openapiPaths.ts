// The OpenAPI description of every path beyond the read shims: the wallet (docs/wallet.md), webhooks
// (docs/webhooks.md), the live feed, MCP and the operations endpoints. openapi.ts merges them into one document;
// test/openapi.document.test.ts checks that every route of the route tables is described here or there, and the
// fuzz (test/invalidInput.test.ts) checks every live answer — status, error code, body — against the document.
import { ERROR_STATUS, type ErrorCode } from "../errors.ts";
import { SUBSCRIPTION_STATUSES } from "@agent-ledger/core";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const int = { type: "integer", minimum: 0 };
const bool = { type: "boolean" };
const uint256 = { type: "string", pattern: "^(0|[1-9][0-9]*)$", description: "uint256 as a decimal string (token base units)" };
const address = { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" };
const txHash = { type: "string", pattern: "^0x[0-9a-f]{64}$" };
const dateTime = { type: "string", format: "date-time" };
const uuid = { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" };
const orNull = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, "null"] });
const obj = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});
/** An object whose listed fields are required and typed; others may be added later (request bodies, WebAuthn JSON). */
const open = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({ type: "object", required, properties });

/** The error responses of an operation: one per status (the one table, errors.ts), each listing the codes it can carry. */
function errors(codes: readonly ErrorCode[], descriptions: Record<string, string> = {}) {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), {
    description: descriptions[status] ?? list.join(", "),
    content: { "application/json": { schema: errorSchema(list) } },
  }]));
}
/**
 * Answers every operation can give whatever its handler: 431 request_header_too_large (Node's parser, before any
 * handler: http/answerClientError.ts), 400 duplicate_authorization (two Authorization headers:
 * auth/checkDuplicateAuthorization.ts) and, on a state-changing method, 403 cross_site_request (a request carrying the
 * session cookie without our Origin: auth/checkRequestOrigin.ts); both checked in buildApp before routing.
 */
export function addCommonErrors(paths: Record<string, Record<string, { responses: Record<string, unknown> }>>): void {
  type ErrorResponse = { description: string; content: { "application/json": { schema: { properties?: { error: { properties: { code: { enum: string[] } } } } } } } };
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

const ok = (schema: unknown, description = "OK", headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema } },
});
const jsonBody = (schema: unknown, required = true) => ({ required, content: { "application/json": { schema } } });
const pathParam = (name: string, schema: Record<string, unknown> = str, description?: string) => ({ name, in: "path", required: true, ...(description ? { description } : {}), schema });
const query = (name: string, schema: Record<string, unknown>, description?: string, required = false) => ({ name, in: "query", required, ...(description ? { description } : {}), schema });

const BEARER = [{ bearer: [] }];
const COOKIE = [{ cookie: [] }];
const NONE: never[] = [];

// ---------------------------------------------------------------------------------------------------------------
// Wallet (docs/wallet.md)

type W = ErrorCode;
const wErr = (codes: W[]) => errors(["method_not_allowed", ...codes]);
/** A JSON body: the body reader's refusals. */
const BODY: W[] = ["invalid_body", "payload_too_large", "unsupported_media_type"];
/** A passkey session cookie (al_session); state-changing requests must also come from our origin. */
const COOKIE_READ: W[] = ["unauthorized"];
const COOKIE_WRITE: W[] = ["unauthorized", "cross_site_request"];
/** A device bearer token (alt_…). */
const BEARER_AUTH: W[] = ["unauthorized", "session_expired", "session_revoked"];
/** Per-client-address rate limits in Redis. */
const LIMITED: W[] = ["rate_limited", "rate_limit_unavailable"];

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

const webauthnCredential = open({ id: str, rawId: str, type: str, response: { type: "object" }, clientExtensionResults: { type: "object" } }, ["id", "rawId", "type", "response"]);

const walletPaths = {
  "/api/wallet/webauthn/register/options": {
    post: {
      operationId: "walletRegisterOptions", tags: ["wallet"], security: NONE,
      summary: "WebAuthn registration options for a new passkey (sets the al_webauthn challenge cookie)",
      requestBody: jsonBody(open({ display_name: str }, []), false),
      responses: { "200": ok({ type: "object", required: ["challenge", "rp", "user"] }), ...wErr([...BODY, ...LIMITED, "invalid_label", "not_configured"]) },
    },
  },
  "/api/wallet/webauthn/register/verify": {
    post: {
      operationId: "walletRegisterVerify", tags: ["wallet"], security: NONE,
      summary: "Verifies the attestation, creates the user and its managed account, signs in (sets al_session)",
      requestBody: jsonBody(webauthnCredential),
      responses: {
        "201": ok(ref("WalletUser"), "Registered and signed in"),
        ...wErr([...BODY, "challenge_not_found", "unsupported_algorithm", "webauthn_verification_failed", "credential_exists", "not_configured"]),
      },
    },
  },
  "/api/wallet/webauthn/auth/options": {
    post: {
      operationId: "walletAuthOptions", tags: ["wallet"], security: NONE,
      summary: "WebAuthn authentication options (discoverable credentials; sets al_webauthn)",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok({ type: "object", required: ["challenge"] }), ...wErr([...BODY, ...LIMITED, "not_configured"]) },
    },
  },
  "/api/wallet/webauthn/auth/verify": {
    post: {
      operationId: "walletAuthVerify", tags: ["wallet"], security: NONE,
      summary: "Verifies the assertion and its counter, signs in (sets al_session)",
      requestBody: jsonBody(webauthnCredential),
      responses: {
        "200": ok(ref("WalletUser"), "Signed in"),
        ...wErr([...BODY, "challenge_not_found", "unsupported_algorithm", "webauthn_verification_failed", "unknown_credential", "counter_regression", "not_configured"]),
      },
    },
  },
  "/api/wallet/me": {
    get: { operationId: "walletMe", tags: ["wallet"], security: COOKIE, summary: "The signed-in passkey user", responses: { "200": ok(ref("WalletUser")), ...wErr([...COOKIE_READ]) } },
  },
  "/api/wallet/logout": {
    post: {
      operationId: "walletLogout", tags: ["wallet"], security: COOKIE, summary: "Ends the passkey session (clears al_session)",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(obj({ ok: { type: "boolean", const: true } })), ...wErr([...BODY, "cross_site_request"]) },
    },
  },
  "/api/wallet/device/start": {
    post: {
      operationId: "walletDeviceStart", tags: ["wallet"], security: NONE,
      summary: "Starts a device pairing (RFC 8628 style): a code for the owner, a device_id for the agent's polling",
      requestBody: jsonBody(open({ agent_label: str }, []), false),
      responses: {
        "200": ok(obj({ code: str, device_id: str, approve_url: str, expires_at: dateTime, poll_interval_seconds: { type: "integer", minimum: 1 }, pairing_id: uuid })),
        ...wErr([...BODY, ...LIMITED, "invalid_label"]),
      },
    },
  },
  "/api/wallet/device/poll": {
    get: {
      operationId: "walletDevicePoll", tags: ["wallet"], security: NONE,
      summary: "The agent polls its pairing; once approved, one poll mints the bearer token (status approved), later polls say claimed",
      parameters: [query("device_id", str, "from device/start", true)],
      responses: {
        "200": ok({
          oneOf: [
            obj({ status: { type: "string", enum: ["pending", "expired", "claimed", "denied"] } }),
            obj({
              status: { type: "string", const: "approved" }, access_token: str, token_type: { type: "string", const: "Bearer" }, session_id: uuid, expires_at: dateTime,
              agent_key_address: address, managed_address: address, spend_cap_wei: uint256, per_call_cap_wei: uint256, token: address,
            }),
          ],
        }),
        ...wErr(["invalid_device_id", "not_found", "slow_down"]),
      },
    },
  },
  "/api/wallet/device/lookup": {
    get: {
      operationId: "walletDeviceLookup", tags: ["wallet"], security: COOKIE,
      summary: "What the approval page shows for a code (rate-limited per address and per user)",
      parameters: [query("code", str, "XXXX-XXXX", true)],
      responses: {
        "200": ok(obj({ code: str, agent_label: orNull(str), status: str, expires_at: dateTime })),
        ...wErr([...COOKIE_READ, ...LIMITED, "invalid_code", "code_not_found", "code_expired"]),
      },
    },
  },
  "/api/wallet/device/approve-init": {
    post: {
      operationId: "walletApproveInit", tags: ["wallet"], security: COOKIE,
      summary: "Creates the session and the agent key for a code; answers what the passkey signs (authorizeKey)",
      requestBody: jsonBody(open({ code: str, spend_cap_wei: uint256, per_call_cap_wei: uint256, session_ttl_seconds: { type: "integer" }, token: address }, ["code", "spend_cap_wei", "per_call_cap_wei", "session_ttl_seconds"])),
      responses: {
        "200": ok({ type: "object", required: ["pairing_id", "session_id", "managed_address", "agent_key_address", "chain", "expiry_unix", "token", "spend_cap_wei", "per_call_cap_wei"] }),
        ...wErr([...BODY, ...COOKIE_WRITE, ...LIMITED, "invalid_code", "invalid_cap", "invalid_ttl", "invalid_token", "invalid_amount", "invalid_address", "code_not_found", "code_expired", "already_approved", "pairing_taken", "not_configured", "chain_unavailable"]),
      },
    },
  },
  "/api/wallet/device/approve-finalize": {
    post: {
      operationId: "walletApproveFinalize", tags: ["wallet"], security: COOKIE,
      summary: "After the passkey's authorizeKey transaction: checks the receipt and the keychain, approves the pairing",
      requestBody: jsonBody(open({ code: str, tx_hash: txHash })),
      responses: {
        "200": ok(obj({ status: { type: "string", const: "approved" }, pairing_id: uuid, session_id: uuid, code: str, authorize_tx_hash: txHash, on_chain_authorized_at: dateTime })),
        ...wErr([...BODY, ...COOKIE_WRITE, ...LIMITED, "invalid_code", "invalid_tx_hash", "code_not_found", "code_expired", "not_initialized", "already_approved", "tx_not_found", "authorization_not_verified", "not_configured", "chain_unavailable"]),
      },
    },
  },
  "/api/wallet/pay": {
    post: {
      operationId: "walletPay", tags: ["wallet"], security: BEARER,
      summary: "Pays from the owner's account with the session's agent key, within its caps; Idempotency-Key makes retries safe",
      parameters: [{ name: "Idempotency-Key", in: "header", required: false, description: "1–200 printable ASCII characters; the same key answers the same payment", schema: { type: "string", minLength: 1, maxLength: 200 } }],
      requestBody: jsonBody(open({ to: address, amount_wei: uint256, memo: str, token: address }, ["to", "amount_wei"])),
      responses: {
        "200": ok(ref("PaymentResult"), "Sent and confirmed"),
        "202": ok(ref("PaymentPending"), "Outcome not known yet: ask again with the same Idempotency-Key"),
        ...wErr([...BODY, ...BEARER_AUTH, "invalid_amount", "invalid_address", "invalid_token", "invalid_memo", "invalid_idempotency_key", "session_not_authorized", "per_call_cap_exceeded", "spend_cap_exceeded", "idempotency_key_reused", "idempotency_key_in_use", "payment_failed", "not_configured", "chain_unavailable"]),
      },
    },
  },
  "/api/wallet/session": {
    get: { operationId: "walletSession", tags: ["wallet"], security: BEARER, summary: "The bearer's session: caps, usage, expiry, status", responses: { "200": ok(ref("WalletSession")), ...wErr(["unauthorized"]) } },
  },
  "/api/wallet/payments": {
    get: {
      operationId: "walletPayments", tags: ["wallet"], security: BEARER, summary: "The bearer session's own payments, newest first",
      parameters: [query("limit", { type: "integer", minimum: 1, maximum: 100 }, "1–100 (default 20)")],
      responses: { "200": ok(obj({ session_id: uuid, items: { type: "array", items: ref("WalletPayment") } })), ...wErr(["unauthorized", "invalid_limit"]) },
    },
  },
  "/api/wallet/session/revoke": {
    post: {
      operationId: "walletSessionRevoke", tags: ["wallet"], security: BEARER, summary: "The agent ends its own session",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(obj({ session_id: uuid, status: { type: "string", const: "revoked" }, revoked_at: dateTime })), ...wErr([...BODY, "unauthorized"]) },
    },
  },
  "/api/wallet/relay": {
    post: {
      operationId: "walletRelay", tags: ["wallet"], security: NONE,
      summary: "JSON-RPC relay for the approval page: reads pass through, fee-sponsored sends only for the calls docs/wallet.md allows",
      requestBody: jsonBody(open({ jsonrpc: str, id: {}, method: str, params: { type: "array" } }, ["method"])),
      responses: { "200": ok({ type: "object", description: "a JSON-RPC response (its own error member for refused calls)" }), ...wErr([...BODY, ...LIMITED, "not_configured", "chain_unavailable"]) },
    },
  },
  "/api/wallet/sessions": {
    get: {
      operationId: "walletOwnerSessions", tags: ["wallet", "owner"], security: COOKIE, summary: "The owner's agent sessions, newest first",
      responses: { "200": ok(open({ managed_address: address, items: { type: "array", items: ref("OwnerSession") } })), ...wErr(COOKIE_READ) },
    },
  },
  "/api/wallet/sessions/{id}": {
    get: {
      operationId: "walletOwnerSession", tags: ["wallet", "owner"], security: COOKIE, summary: "One of the owner's sessions (another owner's id is not_found)",
      parameters: [pathParam("id", str, "session id (uuid)")],
      responses: { "200": ok(ref("OwnerSession")), ...wErr([...COOKIE_READ, "not_found"]) },
    },
  },
  "/api/wallet/sessions/{id}/payments": {
    get: {
      operationId: "walletOwnerSessionPayments", tags: ["wallet", "owner"], security: COOKIE, summary: "A session's payments, newest first, keyset pages",
      parameters: [pathParam("id", str, "session id (uuid)"), query("cursor", str, "next_cursor of the previous page"), query("limit", { type: "integer", minimum: 1, maximum: 100 })],
      responses: { "200": ok(open({ session_id: uuid, items: { type: "array", items: { type: "object" } }, next_cursor: { type: ["string", "null"] } })), ...wErr([...COOKIE_READ, "not_found", "invalid_cursor", "invalid_limit"]) },
    },
  },
  "/api/wallet/sessions/{id}/revoke": {
    post: {
      operationId: "walletOwnerRevoke", tags: ["wallet", "owner"], security: COOKIE,
      summary: "Revokes a session at once in the database; answers the on-chain revokeKey request the passkey signs",
      parameters: [pathParam("id", str, "session id (uuid)")],
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(ref("ChainRevokeSessions")), ...wErr([...BODY, ...COOKIE_WRITE, "not_found"]) },
    },
  },
  "/api/wallet/sessions/revoke-all": {
    post: {
      operationId: "walletOwnerRevokeAll", tags: ["wallet", "owner"], security: COOKIE, summary: "Revokes every live session of the owner",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(ref("ChainRevokeSessions")), ...wErr([...BODY, ...COOKIE_WRITE]) },
    },
  },
  "/api/wallet/sessions/revoke-confirm": {
    post: {
      operationId: "walletOwnerRevokeConfirm", tags: ["wallet", "owner"], security: COOKIE,
      summary: "After the passkey's revokeKey transaction (or its failure): records the on-chain step per session",
      requestBody: jsonBody(open({ session_ids: { type: "array", items: str }, tx_hash: txHash, error: str }, ["session_ids"])),
      responses: { "200": ok(ref("ChainRevokeSessions")), ...wErr([...BODY, ...COOKIE_WRITE, "invalid_tx_hash", "not_found", "tx_not_found", "not_configured", "chain_unavailable"]) },
    },
  },
  "/api/wallet/balances": {
    get: {
      operationId: "walletOwnerBalances", tags: ["wallet", "owner"], security: COOKIE, summary: "The owner account's token balances, read from the chain",
      responses: {
        "200": ok(obj({ managed_address: address, read_at: dateTime, balances: { type: "array", items: obj({ token: address, symbol: orNull(str), decimals: int, balance_wei: uint256 }) } })),
        ...wErr([...COOKIE_READ, "not_configured", "chain_unavailable"]),
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Webhooks (docs/webhooks.md)

type H = ErrorCode;
const hErr = (codes: H[]) => errors(["method_not_allowed", "unauthorized", "session_expired", "session_revoked", ...codes]);
const HBODY: H[] = ["invalid_body", "payload_too_large", "unsupported_media_type"];
const subscriptionId = pathParam("id", str, "subscription id (whs_…)");

const filters = {
  type: "object",
  additionalProperties: false,
  required: ["agent_id"],
  properties: { agent_id: str, recipient_address: address, routed_to_address: address, min_amount_wei: uint256, token_address: address },
};
const webhookSchemas = {
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
const subscriptionWith = (extra: Record<string, unknown>) => ({ allOf: [ref("WebhookSubscription")], ...extra });

const webhookPaths = {
  "/api/webhooks": {
    post: {
      operationId: "createWebhook", tags: ["webhooks"], security: BEARER,
      summary: "Subscribes a callback URL to the rows of one agent (verification handshake first; the signing secret is shown once)",
      requestBody: jsonBody(open({ callback_url: str, label: str, filters }, ["callback_url", "filters"])),
      responses: {
        "201": ok(obj({
          ok: { type: "boolean", const: true }, id: str, status: str, callback_url: str, filters: ref("WebhookFilters"), label: orNull(str),
          signing_secret: str, verify_token: str, verify_token_expires_at: dateTime, created_at: dateTime,
        }), "Created (pending_verification)"),
        ...hErr([...HBODY, "invalid_callback_url", "callback_url_forbidden", "invalid_filters", "unknown_agent", "invalid_label", "limit_reached", "not_configured"]),
      },
    },
    get: {
      operationId: "listWebhooks", tags: ["webhooks"], security: BEARER, summary: "The caller's subscriptions, newest first",
      responses: { "200": ok(obj({ items: { type: "array", items: ref("WebhookSubscription") } })), ...hErr([]) },
    },
  },
  "/api/webhooks/{id}": {
    get: {
      operationId: "getWebhook", tags: ["webhooks"], security: BEARER, summary: "One subscription with its delivery counts",
      parameters: [subscriptionId],
      responses: {
        "200": ok({
          type: "object",
          required: ["id", "status", "deliveries"],
          properties: { ...webhookSchemas.WebhookSubscription.properties, deliveries: obj({ pending: int, retrying: int, succeeded: int, dead: int, total: int }) },
          additionalProperties: false,
        }),
        ...hErr(["not_found"]),
      },
    },
    delete: {
      operationId: "deleteWebhook", tags: ["webhooks"], security: BEARER, summary: "Deletes a subscription (pending deliveries are dropped)",
      parameters: [subscriptionId],
      responses: { "200": ok(obj({ ok: { type: "boolean", const: true }, id: str, status: { type: "string", const: "deleted" } })), ...hErr(["not_found"]) },
    },
  },
  "/api/webhooks/{id}/verify": {
    post: {
      operationId: "verifyWebhook", tags: ["webhooks"], security: [{ bearer: [] }, {}],
      summary: "Completes the handshake with the verify_token sent to the callback (the receiver may call it without credentials)",
      parameters: [subscriptionId],
      requestBody: jsonBody(open({ verify_token: str })),
      responses: {
        "200": ok(obj({ ok: { type: "boolean", const: true }, status: { type: "string", const: "active" } })),
        ...hErr([...HBODY, "invalid_verify_token", "verify_token_expired", "invalid_state", "not_found"]),
      },
    },
  },
  "/api/webhooks/{id}/rotate-secret": {
    post: {
      operationId: "rotateWebhookSecret", tags: ["webhooks"], security: BEARER, summary: "A new signing secret (the old one stays valid for a grace period)",
      parameters: [subscriptionId],
      responses: { "200": ok(obj({ signing_secret: str })), ...hErr(["not_found", "not_configured"]) },
    },
  },
  "/api/webhooks/{id}/pause": {
    post: {
      operationId: "pauseWebhook", tags: ["webhooks"], security: BEARER, summary: "Pauses deliveries (new rows are still recorded for resume)",
      parameters: [subscriptionId],
      responses: { "200": ok(subscriptionWith({ type: "object", required: ["ok"] })), ...hErr(["not_found", "invalid_state"]) },
    },
  },
  "/api/webhooks/{id}/resume": {
    post: {
      operationId: "resumeWebhook", tags: ["webhooks"], security: BEARER, summary: "Resumes a paused or disabled subscription",
      parameters: [subscriptionId],
      responses: { "200": ok(subscriptionWith({ type: "object", required: ["ok"] })), ...hErr(["not_found", "invalid_state"]) },
    },
  },
  "/api/webhooks/{id}/recover": {
    post: {
      operationId: "recoverWebhook", tags: ["webhooks"], security: BEARER, summary: "Re-creates deliveries for matching rows since a time (bounded look-back)",
      parameters: [subscriptionId],
      requestBody: jsonBody(open({ since: dateTime })),
      responses: {
        "202": ok(obj({ ok: { type: "boolean", const: true }, id: str, since: dateTime, matched_events: int, deliveries_created: int }), "Accepted: deliveries queued"),
        ...hErr([...HBODY, "invalid_since", "since_too_old", "invalid_state", "not_found"]),
      },
    },
  },
  "/api/webhooks/{id}/test": {
    post: {
      operationId: "testWebhook", tags: ["webhooks"], security: BEARER, summary: "Queues a signed test delivery",
      parameters: [subscriptionId],
      responses: { "202": ok(obj({ ok: { type: "boolean", const: true }, delivery_id: str, delivery: ref("WebhookDelivery") }), "Accepted: test delivery queued"), ...hErr(["not_found", "invalid_state"]) },
    },
  },
  "/api/webhooks/{id}/deliveries": {
    get: {
      operationId: "listWebhookDeliveries", tags: ["webhooks"], security: BEARER, summary: "Deliveries of a subscription, newest first, keyset pages",
      parameters: [subscriptionId, query("cursor", str, "next_cursor of the previous page"), query("limit", { type: "integer", minimum: 1, maximum: 100 }), query("status", str, "pending | retrying | succeeded | dead")],
      responses: { "200": ok(obj({ items: { type: "array", items: ref("WebhookDelivery") }, next_cursor: { type: ["string", "null"] } })), ...hErr(["not_found", "invalid_cursor", "invalid_limit"]) },
    },
  },
  "/api/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
    post: {
      operationId: "redeliverWebhookDelivery", tags: ["webhooks"], security: BEARER, summary: "Sends a dead (or failed) delivery again",
      parameters: [subscriptionId, pathParam("deliveryId", str, "delivery id (uuid)")],
      responses: { "202": ok(obj({ ok: { type: "boolean", const: true }, delivery: ref("WebhookDelivery") }), "Accepted: queued again"), ...hErr(["not_found", "delivery_succeeded", "invalid_state"]) },
    },
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Live feed, MCP, operations

const opsPaths = {
  "/api/feed": {
    get: {
      operationId: "feed", tags: ["feed"], security: NONE,
      summary: "Live feed of new rows as server-sent events (id = row id; resume with Last-Event-ID); needs NEXT_PUBLIC_LIVE_FEED=1",
      parameters: [
        query("agent_id", str, "only this entity's rows"),
        query("min_amount_wei", uint256, "only rows of at least this amount"),
        query("last_event_id", { type: "string", pattern: "^(0|[1-9][0-9]*)$" }, "resume after this row id (the Last-Event-ID header wins)"),
        { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" } },
      ],
      responses: {
        "200": { description: "text/event-stream: `event: ledger` frames whose data is an EventRow", content: { "text/event-stream": { schema: str } } },
        ...errors(["invalid_amount", "invalid_last_event_id", "not_found", "feed_disabled", "method_not_allowed", "feed_unavailable"]),
      },
    },
  },
  "/mcp": {
    post: {
      operationId: "mcp", tags: ["mcp"], security: [{ bearer: [] }, {}],
      summary: "Model Context Protocol over Streamable HTTP (stateless, JSON answers; docs/mcp.md): ledger, wallet and webhook tools acting as the caller",
      requestBody: jsonBody({ type: "object", description: "a JSON-RPC 2.0 message of MCP" }),
      responses: {
        "200": ok({ type: "object", description: "the JSON-RPC answer" }),
        "202": { description: "Accepted: the body held only notifications or responses (no answer body)" },
        ...errors(["invalid_body", "method_not_allowed", "not_acceptable", "unsupported_media_type", "payload_too_large"]),
        // A body that is not a message: JSON-RPC's own error, as the MCP transport answers it (docs/mcp.md).
        "400": {
          description: "invalid_body (the body could not be read), or JSON-RPC's own error with id null: -32700 parse error (not JSON, nested more than 64 levels), -32600 invalid request (not a JSON-RPC 2.0 message)",
          // One schema for both shapes: the API's error body, or JSON-RPC's error (jsonrpc "2.0", id null, a numeric code).
          content: { "application/json": { schema: {
            type: "object", required: ["error"],
            properties: {
              jsonrpc: { type: "string", const: "2.0" }, id: { type: "null" },
              error: { type: "object", required: ["code", "message"], properties: { code: { enum: ["invalid_body", "duplicate_authorization", -32700, -32600] }, message: str } },
            },
          } } },
        },
        ...errors(["cross_site_request"], { 403: "cross_site_request: a foreign Origin or a Host that is not a name of this API (DNS rebinding protection, docs/mcp.md)" }),
      },
    },
  },
  "/healthz": {
    get: { operationId: "healthz", tags: ["ops"], security: NONE, summary: "Liveness: the process answers", responses: { "200": ok(obj({ ok: { type: "boolean", const: true } })), ...errors(["method_not_allowed"]) } },
  },
  "/readyz": {
    get: {
      operationId: "readyz", tags: ["ops"], security: NONE,
      summary: "Readiness: database, Redis, indexer lag and checkpoint age within their limits (docs/api.md § Operations); 503 lists what failed",
      responses: {
        "200": ok({ type: "object", required: ["ok"], properties: { ok: { type: "boolean", const: true } } }),
        "503": ok({ type: "object", required: ["ok"], properties: { ok: { type: "boolean", const: false } } }, "Not ready (same shape, ok false)"),
        ...errors(["method_not_allowed"]),
      },
    },
  },
  "/metrics": {
    get: {
      operationId: "metrics", tags: ["ops"], security: NONE,
      summary: "Prometheus text exposition (every name starts with agent_ledger_; docs/operations.md). Block it at the edge of a public deployment",
      responses: { "200": { description: "text/plain; version=0.0.4", content: { "text/plain": { schema: str } } }, ...errors(["method_not_allowed"]) },
    },
  },
};

export const extraSchemas = { ...walletSchemas, ...webhookSchemas };
export const extraPaths = { ...walletPaths, ...webhookPaths, ...opsPaths };

/** bearer: a device token (`alt_…`, from device pairing) or a user session token; cookie: the passkey session. */
export const securitySchemes = {
  bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <token> — a device session's alt_… token (wallet pay, webhooks, MCP) (docs/wallet.md)" },
  cookie: { type: "apiKey", in: "cookie", name: "al_session", description: "The passkey session set by webauthn/*/verify; state-changing requests must come from our own origin (403 cross_site_request)" },
};
