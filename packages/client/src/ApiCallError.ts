/**
 * A call to our API that failed: a non-2xx answer with the API's `{ error: { code, message } }` (or `http_<status>`
 * when the body is not that), a GraphQL answer with `errors` (the first one's `extensions.code`), a 2xx that is not
 * JSON (`invalid_answer`), or no answer at all: `status` 0, code `api_unreachable` (refused, DNS, timeout; the
 * fetch error is the `cause`). Distinct from the server's own `ApiError` (packages/api/src/errors.ts).
 */
export class ApiCallError extends Error {
  constructor(
    /** The HTTP status of the answer; 0 when there was none. */
    readonly status: number,
    readonly code: string,
    message: string,
    /** The answer's `Retry-After`, in whole seconds (core's parseRetryAfter); null without one. */
    readonly retryAfterSeconds: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ApiCallError";
  }
}
