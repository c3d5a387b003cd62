export const WEBHOOK_ERROR_STATUS = {
  invalid_body: 400,
  invalid_callback_url: 400,
  callback_url_forbidden: 400,
  invalid_filters: 400,
  unknown_agent: 400,
  invalid_label: 400,
  invalid_verify_token: 400,
  invalid_cursor: 400,
  invalid_limit: 400,
  invalid_since: 400,
  since_too_old: 400,
  unauthorized: 401,
  session_expired: 403,
  session_revoked: 403,
  not_found: 404,
  method_not_allowed: 405,
  limit_reached: 409,
  invalid_state: 409,
  delivery_succeeded: 409,
  verify_token_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  not_configured: 503,
} as const;

export type WebhookErrorCode = keyof typeof WEBHOOK_ERROR_STATUS;

/** A client error of the webhook surface; REST maps `code` through WEBHOOK_ERROR_STATUS, GraphQL to extensions.code. */
export class WebhookError extends Error {
  constructor(readonly code: WebhookErrorCode, message: string) {
    super(message);
    this.name = "WebhookError";
  }
  get status(): number {
    return WEBHOOK_ERROR_STATUS[this.code];
  }
}
