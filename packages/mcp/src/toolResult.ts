import { ERROR_STATUS, isErrorCode } from "@agent-ledger/core/errorStatus";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiCallError } from "./createApiCaller.ts";

/** A successful tool answer: the structured content, and the same JSON as text for clients that read only text. */
export function ok(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * The HTTP-equivalent status of an error code: the API's one code → status table (core errorStatus.ts) for its codes,
 * else `fallback` (the answer's own status: a proxy's 502, 0 when the API did not answer).
 */
export function statusOf(code: string, fallback?: number): number | undefined {
  return isErrorCode(code) ? ERROR_STATUS[code] : fallback;
}

/**
 * A tool error (`isError`): `{ "error": { code, message, status, hint?, … } }` as text — the API's own code, and the
 * status the API answers that code with (also for a code that reached us inside a GraphQL 200, or that this server
 * gave itself, e.g. `not_found` for a null field).
 */
export function fail(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  const status = statusOf(code, typeof extra.status === "number" ? extra.status : undefined);
  const error = { code, message, ...extra, ...(status === undefined ? {} : { status }) };
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }] };
}

export interface FailContext {
  /** Shown when a call that needs a paired session is refused 401 (how to get one on this host). */
  authHint: string;
  /** Whether the caller configured a bearer token at all. */
  hasBearer: boolean;
}

/** Any error of a tool handler as a tool error (an unexpected one included: a tool never crashes the server). */
export function failFrom(error: unknown, ctx: FailContext, extra: Record<string, unknown> = {}): CallToolResult {
  if (error instanceof ApiCallError) {
    const details: Record<string, unknown> = { status: error.status, ...extra };
    if (error.retryAfterSeconds !== null) details.retry_after_seconds = error.retryAfterSeconds;
    if (statusOf(error.code, error.status) === 401)
      details.hint = ctx.hasBearer ? `the access token was refused; ${ctx.authHint}` : `this tool needs a paired wallet session; ${ctx.authHint}`;
    return fail(error.code, error.message, details);
  }
  if (error instanceof RangeError) return fail("bad_request", error.message, extra);
  return fail("internal_error", error instanceof Error ? error.message : String(error), extra);
}
