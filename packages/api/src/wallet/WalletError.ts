/** Status of every error code of the wallet surface (docs/wallet.md). */
export const WALLET_ERROR_STATUS = {
  invalid_body: 400,
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
  invalid_cursor: 400,
  invalid_limit: 400,
  challenge_not_found: 400,
  unsupported_algorithm: 400,
  unauthorized: 401,
  webauthn_verification_failed: 401,
  unknown_credential: 401,
  counter_regression: 401,
  session_expired: 403,
  session_revoked: 403,
  session_not_authorized: 403,
  per_call_cap_exceeded: 403,
  spend_cap_exceeded: 403,
  not_found: 404,
  code_not_found: 404,
  tx_not_found: 404,
  method_not_allowed: 405,
  credential_exists: 409,
  already_approved: 409,
  pairing_taken: 409,
  not_initialized: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  code_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  authorization_not_verified: 422,
  slow_down: 429,
  rate_limited: 429,
  payment_failed: 500,
  not_configured: 503,
  chain_unavailable: 503,
  rate_limit_unavailable: 503,
} as const;

export type WalletErrorCode = keyof typeof WALLET_ERROR_STATUS;

/** A client-visible error of /api/wallet/*: `{ error: { code, message } }` with the code's status. */
export class WalletError extends Error {
  constructor(
    readonly code: WalletErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "WalletError";
  }
  get status(): number {
    return WALLET_ERROR_STATUS[this.code];
  }
}
