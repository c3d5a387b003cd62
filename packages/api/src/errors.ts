import { LedgerError } from "@agent-ledger/core";

// The one code → status table lives in core (errorStatus.ts), so the MCP server reports the same status for a code
// without importing the API; every surface of the API answers from it (docs/api.md "Error codes").
export { ERROR_CODES, ERROR_STATUS, isErrorCode, type ErrorCode } from "@agent-ledger/core/errorStatus";
import { ERROR_STATUS, type ErrorCode } from "@agent-ledger/core/errorStatus";

/**
 * The one client error of the API (a core LedgerError): REST answers `{ error: { code, message } }` with
 * ERROR_STATUS[code] (and `headers`), GraphQL the same code in `extensions.code`. Anything thrown that is not an
 * ApiError is unexpected: a 500 `internal_error` / a masked GraphQL error. AuthError, BodyError, WalletError,
 * WebhookError and FeedError are names of it per surface; they carry no mapping of their own.
 */
export class ApiError extends LedgerError {
  declare readonly code: ErrorCode;
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
    this.name = "ApiError";
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
