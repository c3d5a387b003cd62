/**
 * Typed errors of the read API. REST maps `code` to an HTTP status (rest/errorStatus.ts); GraphQL puts it in
 * `extensions.code`. Anything that is not an ApiError is unexpected: a 500 / a masked GraphQL error.
 */
export const ERROR_CODES = [
  "not_found",
  "method_not_allowed",
  "invalid_window",
  "invalid_id",
  "invalid_query",
  "invalid_cursor",
  "invalid_limit",
  "not_ready",
  "internal_error",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class ApiError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }
}
