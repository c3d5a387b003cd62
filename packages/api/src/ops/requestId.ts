import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const REQUEST_ID_HEADER = "x-request-id";
export const REQUEST_ID_MAX_LENGTH = 128;

/** Visible ASCII a proxy or client would put in a request id (UUIDs, hex, base64/base64url, dotted/colon ids). */
const VALID_REQUEST_ID = /^[A-Za-z0-9._~:+/=@-]+$/;

/** True when `value` is an acceptable incoming request id: 1–128 characters of [A-Za-z0-9._~:+/=@-]. */
export function isValidRequestId(value: string): boolean {
  return value.length > 0 && value.length <= REQUEST_ID_MAX_LENGTH && VALID_REQUEST_ID.test(value);
}

/**
 * The request's id: the incoming `x-request-id` when it is valid (so a proxy's id follows the request through our logs),
 * else a fresh UUID. Invalid ids (too long, spaces, control characters, several headers) are replaced, never echoed.
 */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === "string" && isValidRequestId(incoming) ? incoming : randomUUID();
}
