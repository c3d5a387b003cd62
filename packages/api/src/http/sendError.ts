import type { ServerResponse } from "node:http";
import { ERROR_STATUS, type ApiError, type ErrorCode } from "../errors.ts";
import { sendJson } from "./sendJson.ts";

/**
 * Writes the project's error shape, `{ "error": { "code": "snake_case", "message": "…" } }`, with the code's status
 * from the one table (errors.ts, ERROR_STATUS), never cached.
 */
export function sendError(res: ServerResponse, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, ERROR_STATUS[code], { error: { code, message } }, { "cache-control": "no-store", ...headers });
}

/** sendError for a thrown ApiError (its code, message and headers). */
export function sendApiError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendError(res, error.code, error.message, { ...error.headers, ...headers });
}
