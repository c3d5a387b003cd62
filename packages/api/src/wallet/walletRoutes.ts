import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BEARER,
  BEARER_AUTH,
  BODY,
  COOKIE,
  COOKIE_READ,
  COOKIE_WRITE,
  dateTime,
  int,
  jsonBody,
  LIMITED,
  NONE,
  obj,
  ok,
  open,
  orNull,
  pathParam,
  query,
  ref,
  str,
  uint256,
  address,
  txHash,
  uuid,
  webauthnCredential,
  wErr,
} from "../routes/openapiParts.ts";
import type { AnyRoute, RouteRequest } from "../routes/Route.ts";
import { WALLET_SURFACE } from "../routes/surfaces.ts";
import { approveFinalize, approveInit } from "./approve.ts";
import type { WalletContext } from "./context.ts";
import { listPayments } from "./listPayments.ts";
import {
  confirmOwnerRevoke,
  getOwnerSession,
  listOwnerSessionPayments,
  listOwnerSessions,
  ownerBalances,
  revokeAllOwnerSessions,
  revokeOwnerSession,
} from "./owner.ts";
import { lookupPairing, pollPairing, startPairing } from "./pairing.ts";
import { pay, type PayTiming } from "./pay.ts";
import type { LimitName } from "./rateLimiter.ts";
import { getSession, revokeSession } from "./session.ts";
import { OBJECT_BODY, PAYMENTS_QUERY, POLL_QUERY, REGISTER_OPTIONS_BODY, START_PAIRING_BODY } from "./walletInputs.ts";
import { authOptions, authVerify, logout, me, registerOptions, registerVerify } from "./webauthn.ts";

/** What the wallet handlers need (built by createWalletHandler). */
export interface WalletRouteDeps {
  ctx: WalletContext;
  onPayTiming?: (t: PayTiming) => void;
  relay: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/**
 * A per-client-address limit, counted before anything else (before the session cookie is even looked up): every path
 * that takes a device code, and every path that stores something without a login. The code paths also count per
 * signed-in user (in the handlers, after requireUser). docs/wallet.md § Rate limits.
 */
const limit =
  (name: LimitName) =>
  async (req: IncomingMessage, { ctx }: WalletRouteDeps) =>
    ctx.limits.consume(name, ctx.limits.clientKey(req));

/** What a handler gets: the body and query its route's `input` declared, parsed (walletInputs.ts). */
type Req<Body, Query = URLSearchParams> = RouteRequest<Body, Query>;

// Why some handlers read their own input (`input.own`): what they must do before judging it.
const CHALLENGE_FIRST = "the WebAuthn challenge is consumed before the body is read: single use even when the body is refused (webauthn.ts)";
const USER_LIMIT_FIRST =
  "the signed-in user's code-entry limit is counted before the code is judged, so malformed guesses count too (docs/wallet.md § Rate limits)";

/** The wallet (docs/wallet.md): passkeys, device pairing, relay, payments, the agent's session and the owner's console. */
export const WALLET_ROUTES: readonly AnyRoute<WalletRouteDeps>[] = [
  {
    method: "POST",
    path: "/api/wallet/webauthn/register/options",
    auth: "none",
    before: limit("options"),
    input: { body: REGISTER_OPTIONS_BODY },
    surface: WALLET_SURFACE,
    handle: ({ req, body }: Req<{ displayName: string | null }>, { ctx }) => registerOptions(ctx, req, body),
    openapi: {
      operationId: "walletRegisterOptions",
      tags: ["wallet"],
      security: NONE,
      summary: "WebAuthn registration options for a new passkey (sets the al_webauthn challenge cookie)",
      requestBody: jsonBody(open({ display_name: str }, []), false),
      responses: { "200": ok({ type: "object", required: ["challenge", "rp", "user"] }), ...wErr([...BODY, ...LIMITED, "invalid_label", "not_configured"]) },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/webauthn/register/verify",
    auth: "none",
    input: { own: CHALLENGE_FIRST },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => registerVerify(ctx, req),
    openapi: {
      operationId: "walletRegisterVerify",
      tags: ["wallet"],
      security: NONE,
      summary: "Verifies the attestation, creates the user and its managed account, signs in (sets al_session)",
      requestBody: jsonBody(webauthnCredential),
      responses: {
        "201": ok(ref("WalletUser"), "Registered and signed in"),
        ...wErr([...BODY, "challenge_not_found", "unsupported_algorithm", "webauthn_verification_failed", "credential_exists", "not_configured"]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/webauthn/auth/options",
    auth: "none",
    before: limit("options"),
    input: { body: OBJECT_BODY },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => authOptions(ctx, req),
    openapi: {
      operationId: "walletAuthOptions",
      tags: ["wallet"],
      security: NONE,
      summary: "WebAuthn authentication options (discoverable credentials; sets al_webauthn)",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok({ type: "object", required: ["challenge"] }), ...wErr([...BODY, ...LIMITED, "not_configured"]) },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/webauthn/auth/verify",
    auth: "none",
    input: { own: CHALLENGE_FIRST },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => authVerify(ctx, req),
    openapi: {
      operationId: "walletAuthVerify",
      tags: ["wallet"],
      security: NONE,
      summary: "Verifies the assertion and its counter, signs in (sets al_session)",
      requestBody: jsonBody(webauthnCredential),
      responses: {
        "200": ok(ref("WalletUser"), "Signed in"),
        ...wErr([
          ...BODY,
          "challenge_not_found",
          "unsupported_algorithm",
          "webauthn_verification_failed",
          "unknown_credential",
          "counter_regression",
          "not_configured",
        ]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/me",
    auth: "cookie",
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => me(ctx, req),
    openapi: {
      operationId: "walletMe",
      tags: ["wallet"],
      security: COOKIE,
      summary: "The signed-in passkey user",
      responses: { "200": ok(ref("WalletUser")), ...wErr([...COOKIE_READ]) },
    },
  },
  // any cookie, even an expired one, is cleared: no authentication step
  {
    method: "POST",
    path: "/api/wallet/logout",
    auth: "none",
    input: { own: "none: logout ignores its body (any request clears the cookie)" },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => logout(ctx, req),
    openapi: {
      operationId: "walletLogout",
      tags: ["wallet"],
      security: COOKIE,
      summary: "Ends the passkey session (clears al_session)",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(obj({ ok: { type: "boolean", const: true } })), ...wErr([...BODY, "cross_site_request"]) },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/device/start",
    auth: "none",
    before: limit("start"),
    input: { body: START_PAIRING_BODY },
    surface: WALLET_SURFACE,
    handle: ({ body }: Req<{ agentLabel: string | null }>, { ctx }) => startPairing(ctx, body),
    openapi: {
      operationId: "walletDeviceStart",
      tags: ["wallet"],
      security: NONE,
      summary: "Starts a device pairing (RFC 8628 style): a code for the owner, a device_id for the agent's polling",
      requestBody: jsonBody(open({ agent_label: str }, []), false),
      responses: {
        "200": ok(
          obj({ code: str, device_id: str, approve_url: str, expires_at: dateTime, poll_interval_seconds: { type: "integer", minimum: 1 }, pairing_id: uuid }),
        ),
        ...wErr([...BODY, ...LIMITED, "invalid_label"]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/device/poll",
    auth: "none",
    input: { query: POLL_QUERY },
    surface: WALLET_SURFACE,
    handle: ({ query }: Req<undefined, { device_id: string }>, { ctx }) => pollPairing(ctx, query.device_id),
    openapi: {
      operationId: "walletDevicePoll",
      tags: ["wallet"],
      security: NONE,
      summary: "The agent polls its pairing; once approved, one poll mints the bearer token (status approved), later polls say claimed",
      parameters: [query("device_id", str, "from device/start", true)],
      responses: {
        "200": ok({
          oneOf: [
            obj({ status: { type: "string", enum: ["pending", "expired", "claimed", "denied"] } }),
            obj({
              status: { type: "string", const: "approved" },
              access_token: str,
              token_type: { type: "string", const: "Bearer" },
              session_id: uuid,
              expires_at: dateTime,
              agent_key_address: address,
              managed_address: address,
              spend_cap_wei: uint256,
              per_call_cap_wei: uint256,
              token: address,
            }),
          ],
        }),
        ...wErr(["invalid_device_id", "not_found", "slow_down"]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/device/lookup",
    auth: "cookie",
    before: limit("code"),
    input: { own: USER_LIMIT_FIRST },
    surface: WALLET_SURFACE,
    handle: ({ req, url }, { ctx }) => lookupPairing(ctx, req, url),
    openapi: {
      operationId: "walletDeviceLookup",
      tags: ["wallet"],
      security: COOKIE,
      summary: "What the approval page shows for a code (rate-limited per address and per user)",
      parameters: [query("code", str, "XXXX-XXXX", true)],
      responses: {
        "200": ok(obj({ code: str, agent_label: orNull(str), status: str, expires_at: dateTime })),
        ...wErr([...COOKIE_READ, ...LIMITED, "invalid_code", "code_not_found", "code_expired"]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/device/approve-init",
    auth: "cookie",
    before: limit("code"),
    input: { own: USER_LIMIT_FIRST },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => approveInit(ctx, req),
    openapi: {
      operationId: "walletApproveInit",
      tags: ["wallet"],
      security: COOKIE,
      summary: "Creates the session and the agent key for a code; answers what the passkey signs (authorizeKey)",
      requestBody: jsonBody(
        open({ code: str, spend_cap_wei: uint256, per_call_cap_wei: uint256, session_ttl_seconds: { type: "integer" }, token: address }, [
          "code",
          "spend_cap_wei",
          "per_call_cap_wei",
          "session_ttl_seconds",
        ]),
      ),
      responses: {
        "200": ok({
          type: "object",
          required: ["pairing_id", "session_id", "managed_address", "agent_key_address", "chain", "expiry_unix", "token", "spend_cap_wei", "per_call_cap_wei"],
        }),
        ...wErr([
          ...BODY,
          ...COOKIE_WRITE,
          ...LIMITED,
          "invalid_code",
          "invalid_cap",
          "invalid_ttl",
          "invalid_token",
          "invalid_amount",
          "invalid_address",
          "code_not_found",
          "code_expired",
          "already_approved",
          "pairing_taken",
          "not_configured",
          "chain_unavailable",
        ]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/device/approve-finalize",
    auth: "cookie",
    before: limit("code"),
    input: { own: USER_LIMIT_FIRST },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => approveFinalize(ctx, req),
    openapi: {
      operationId: "walletApproveFinalize",
      tags: ["wallet"],
      security: COOKIE,
      summary: "After the passkey's authorizeKey transaction: checks the receipt and the keychain, approves the pairing",
      requestBody: jsonBody(open({ code: str, tx_hash: txHash })),
      responses: {
        "200": ok(
          obj({
            status: { type: "string", const: "approved" },
            pairing_id: uuid,
            session_id: uuid,
            code: str,
            authorize_tx_hash: txHash,
            on_chain_authorized_at: dateTime,
          }),
        ),
        ...wErr([
          ...BODY,
          ...COOKIE_WRITE,
          ...LIMITED,
          "invalid_code",
          "invalid_tx_hash",
          "code_not_found",
          "code_expired",
          "not_initialized",
          "already_approved",
          "tx_not_found",
          "authorization_not_verified",
          "not_configured",
          "chain_unavailable",
        ]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/pay",
    auth: "bearer",
    authInHandler: true,
    input: {
      own: "pay authenticates in the handler (its signer cache), then reads the body with the Idempotency-Key (readPayRequest.ts): a replay answers before the body is judged",
    },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx, onPayTiming }) => pay(ctx, req, onPayTiming),
    openapi: {
      operationId: "walletPay",
      tags: ["wallet"],
      security: BEARER,
      summary: "Pays from the owner's account with the session's agent key, within its caps; Idempotency-Key makes retries safe",
      parameters: [
        {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "1–200 printable ASCII characters; the same key answers the same payment",
          schema: { type: "string", minLength: 1, maxLength: 200 },
        },
      ],
      requestBody: jsonBody(open({ to: address, amount_wei: uint256, memo: str, token: address }, ["to", "amount_wei"])),
      responses: {
        "200": ok(ref("PaymentResult"), "Sent and confirmed"),
        "202": ok(ref("PaymentPending"), "Outcome not known yet: ask again with the same Idempotency-Key"),
        ...wErr([
          ...BODY,
          ...BEARER_AUTH,
          "invalid_amount",
          "invalid_address",
          "invalid_token",
          "invalid_memo",
          "invalid_idempotency_key",
          "session_not_authorized",
          "per_call_cap_exceeded",
          "spend_cap_exceeded",
          "idempotency_key_reused",
          "idempotency_key_in_use",
          "payment_failed",
          "not_configured",
          "chain_unavailable",
        ]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/session",
    auth: "bearer",
    allowInactive: true,
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => getSession(ctx, req),
    openapi: {
      operationId: "walletSession",
      tags: ["wallet"],
      security: BEARER,
      summary: "The bearer's session: caps, usage, expiry, status",
      responses: { "200": ok(ref("WalletSession")), ...wErr(["unauthorized"]) },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/payments",
    auth: "bearer",
    allowInactive: true,
    input: { query: PAYMENTS_QUERY },
    surface: WALLET_SURFACE,
    handle: ({ req, query }: Req<undefined, { limit: number }>, { ctx }) => listPayments(ctx, req, query.limit),
    openapi: {
      operationId: "walletPayments",
      tags: ["wallet"],
      security: BEARER,
      summary: "The bearer session's own payments, newest first",
      parameters: [query("limit", { type: "integer", minimum: 1, maximum: 100 }, "1–100 (default 20)")],
      responses: { "200": ok(obj({ session_id: uuid, items: { type: "array", items: ref("WalletPayment") } })), ...wErr(["unauthorized", "invalid_limit"]) },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/session/revoke",
    auth: "bearer",
    allowInactive: true,
    input: { body: OBJECT_BODY },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => revokeSession(ctx, req),
    openapi: {
      operationId: "walletSessionRevoke",
      tags: ["wallet"],
      security: BEARER,
      summary: "The agent ends its own session",
      requestBody: jsonBody({ type: "object" }, false),
      responses: {
        "200": ok(obj({ session_id: uuid, status: { type: "string", const: "revoked" }, revoked_at: dateTime })),
        ...wErr([...BODY, "unauthorized"]),
      },
    },
  },
  {
    kind: "raw",
    methods: ["POST"],
    path: "/api/wallet/relay",
    auth: "none",
    surface: WALLET_SURFACE,
    before: limit("relay"),
    handle: (req, res, _url, { relay }) => relay(req, res),
    openapi: {
      post: {
        operationId: "walletRelay",
        tags: ["wallet"],
        security: NONE,
        summary: "JSON-RPC relay for the approval page: reads pass through, fee-sponsored sends only for the calls docs/wallet.md allows",
        requestBody: jsonBody(open({ jsonrpc: str, id: {}, method: str, params: { type: "array" } }, ["method"])),
        responses: {
          "200": ok({ type: "object", description: "a JSON-RPC response (its own error member for refused calls)" }),
          ...wErr([...BODY, ...LIMITED, "not_configured", "chain_unavailable"]),
        },
      },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/sessions",
    auth: "cookie",
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => listOwnerSessions(ctx, req),
    openapi: {
      operationId: "walletOwnerSessions",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "The owner's agent sessions, newest first",
      responses: { "200": ok(open({ managed_address: address, items: { type: "array", items: ref("OwnerSession") } })), ...wErr(COOKIE_READ) },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/sessions/:id",
    auth: "cookie",
    surface: WALLET_SURFACE,
    handle: ({ req, params }, { ctx }) => getOwnerSession(ctx, req, params.id!),
    openapi: {
      operationId: "walletOwnerSession",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "One of the owner's sessions (another owner's id is not_found)",
      parameters: [pathParam("id", str, "session id (uuid)")],
      responses: { "200": ok(ref("OwnerSession")), ...wErr([...COOKIE_READ, "not_found"]) },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/sessions/:id/payments",
    auth: "cookie",
    input: { own: "the session is looked up first (404 before invalid_limit / invalid_cursor), as the GraphQL field does (owner.ts)" },
    surface: WALLET_SURFACE,
    handle: ({ req, params, url }, { ctx }) => listOwnerSessionPayments(ctx, req, params.id!, url),
    openapi: {
      operationId: "walletOwnerSessionPayments",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "A session's payments, newest first, keyset pages",
      parameters: [
        pathParam("id", str, "session id (uuid)"),
        query("cursor", str, "next_cursor of the previous page"),
        query("limit", { type: "integer", minimum: 1, maximum: 100 }),
      ],
      responses: {
        "200": ok(open({ session_id: uuid, items: { type: "array", items: { type: "object" } }, next_cursor: { type: ["string", "null"] } })),
        ...wErr([...COOKIE_READ, "not_found", "invalid_cursor", "invalid_limit"]),
      },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/sessions/:id/revoke",
    auth: "cookie",
    input: { body: OBJECT_BODY },
    surface: WALLET_SURFACE,
    handle: ({ req, params }, { ctx }) => revokeOwnerSession(ctx, req, params.id!),
    openapi: {
      operationId: "walletOwnerRevoke",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "Revokes a session at once in the database; answers the on-chain revokeKey request the passkey signs",
      parameters: [pathParam("id", str, "session id (uuid)")],
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(ref("ChainRevokeSessions")), ...wErr([...BODY, ...COOKIE_WRITE, "not_found"]) },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/sessions/revoke-all",
    auth: "cookie",
    input: { body: OBJECT_BODY },
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => revokeAllOwnerSessions(ctx, req),
    openapi: {
      operationId: "walletOwnerRevokeAll",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "Revokes every live session of the owner",
      requestBody: jsonBody({ type: "object" }, false),
      responses: { "200": ok(ref("ChainRevokeSessions")), ...wErr([...BODY, ...COOKIE_WRITE]) },
    },
  },
  {
    method: "POST",
    path: "/api/wallet/sessions/revoke-confirm",
    auth: "cookie",
    input: { body: OBJECT_BODY },
    surface: WALLET_SURFACE,
    handle: ({ req, body }: Req<Record<string, unknown>>, { ctx }) => confirmOwnerRevoke(ctx, req, body),
    openapi: {
      operationId: "walletOwnerRevokeConfirm",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "After the passkey's revokeKey transaction (or its failure): records the on-chain step per session",
      requestBody: jsonBody(open({ session_ids: { type: "array", items: str }, tx_hash: txHash, error: str }, ["session_ids"])),
      responses: {
        "200": ok(ref("ChainRevokeSessions")),
        ...wErr([...BODY, ...COOKIE_WRITE, "invalid_tx_hash", "not_found", "tx_not_found", "not_configured", "chain_unavailable"]),
      },
    },
  },
  {
    method: "GET",
    path: "/api/wallet/balances",
    auth: "cookie",
    surface: WALLET_SURFACE,
    handle: ({ req }, { ctx }) => ownerBalances(ctx, req),
    openapi: {
      operationId: "walletOwnerBalances",
      tags: ["wallet", "owner"],
      security: COOKIE,
      summary: "The owner account's token balances, read from the chain",
      responses: {
        "200": ok(
          obj({
            managed_address: address,
            read_at: dateTime,
            balances: { type: "array", items: obj({ token: address, symbol: orNull(str), decimals: int, balance_wei: uint256 }) },
          }),
        ),
        ...wErr([...COOKIE_READ, "not_configured", "chain_unavailable"]),
      },
    },
  },
];
