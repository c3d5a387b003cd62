/**
 * The one table of client-visible error codes and their HTTP status (HTTP-equivalent status for surfaces that are not
 * HTTP: the MCP tools' errors). The API answers with it (packages/api/src/errors.ts re-exports it: `ApiError`,
 * REST, GraphQL `extensions.code`, docs/api.md "Error codes"); the MCP server reports the same status for a code it got
 * from GraphQL (where a field error travels in a 200). Not here: `payment_pending` (202, a result, not an error).
 */
export const ERROR_STATUS = {
  // 400: the request is wrong
  bad_request: 400,
  invalid_body: 400,
  invalid_window: 400,
  invalid_id: 400,
  invalid_query: 400,
  invalid_cursor: 400,
  invalid_limit: 400,
  invalid_amount: 400,
  invalid_address: 400,
  invalid_token: 400,
  invalid_memo: 400,
  invalid_code: 400,
  invalid_cap: 400,
  invalid_ttl: 400,
  invalid_tx_hash: 400,
  invalid_device_id: 400,
  invalid_label: 400,
  invalid_idempotency_key: 400,
  invalid_callback_url: 400,
  callback_url_forbidden: 400,
  invalid_filters: 400,
  unknown_agent: 400,
  invalid_verify_token: 400,
  invalid_since: 400,
  since_too_old: 400,
  invalid_last_event_id: 400,
  challenge_not_found: 400,
  unsupported_algorithm: 400,
  graphql_parse_failed: 400,
  graphql_validation_failed: 400,
  query_too_complex: 400,
  invalid_variables: 400,
  invalid_request: 400,
  invalid_uint256: 400,
  invalid_datetime: 400,
  subscription_only: 400,
  use_graphql_stream: 400,
  duplicate_authorization: 400,
  // 401: who is calling is not known
  unauthorized: 401,
  webauthn_verification_failed: 401,
  unknown_credential: 401,
  counter_regression: 401,
  // 403: known, but not allowed
  session_expired: 403,
  session_revoked: 403,
  session_not_authorized: 403,
  per_call_cap_exceeded: 403,
  spend_cap_exceeded: 403,
  cross_site_request: 403,
  // 404 … 431
  not_found: 404,
  code_not_found: 404,
  tx_not_found: 404,
  feed_disabled: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  credential_exists: 409,
  already_approved: 409,
  pairing_taken: 409,
  not_initialized: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  limit_reached: 409,
  invalid_state: 409,
  delivery_succeeded: 409,
  code_expired: 410,
  verify_token_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  authorization_not_verified: 422,
  slow_down: 429,
  rate_limited: 429,
  request_header_too_large: 431,
  // 5xx: the server's side
  internal_error: 500,
  payment_failed: 500,
  not_ready: 503,
  not_configured: 503,
  chain_unavailable: 503,
  rate_limit_unavailable: 503,
  feed_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Whether `code` is one of the table's codes. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_STATUS, code);
}
