import { ApiCallError } from "./ApiCallError.ts";
import { retryAfterSeconds } from "./retryAfterSeconds.ts";

/**
 * The error for an answer of the API that is not a success: the `{ error: { code, message } }` envelope's code and
 * message (`http_<status>` and `fallbackMessage` when the body is not that), its `Retry-After` in seconds.
 */
export function apiCallErrorOf(status: number, body: unknown, headers: Headers, fallbackMessage: string, now: Date): ApiCallError {
  const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof err?.code === "string" && err.code ? err.code : `http_${status}`;
  const message = typeof err?.message === "string" && err.message ? err.message : fallbackMessage;
  return new ApiCallError(status, code, message, retryAfterSeconds(headers, now));
}
