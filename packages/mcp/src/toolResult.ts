import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiCallError } from "./createApiCaller.ts";

/** A successful tool answer: the structured content, and the same JSON as text for clients that read only text. */
export function ok(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A tool error (`isError`): `{ "error": { code, message, status?, hint?, … } }` as text — the API's own code. */
export function fail(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: { code, message, ...extra } }) }] };
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
    if (error.status === 401) details.hint = ctx.hasBearer ? `the access token was refused; ${ctx.authHint}` : `this tool needs a paired wallet session; ${ctx.authHint}`;
    return fail(error.code, error.message, details);
  }
  if (error instanceof RangeError) return fail("invalid_argument", error.message, extra);
  return fail("internal_error", error instanceof Error ? error.message : String(error), extra);
}
