import type { IncomingMessage } from "node:http";
import type { ZodType } from "zod";
import { ApiError, isErrorCode } from "../errors.ts";
import { readJsonBody } from "../http/readBody.ts";
import type { RouteInput } from "./Route.ts";

/**
 * The value `schema` parsed, or the ApiError of its first issue: the code an issue states (`params.code`, set by
 * routes/parsedBy.ts or a refinement) when it is one of the API's codes, else `fallback`; the issue's message.
 */
function parseOrThrow(schema: ZodType, value: unknown, fallback: "invalid_query" | "invalid_body"): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const stated = issue?.code === "custom" ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  const code = typeof stated === "string" && isErrorCode(stated) ? stated : fallback;
  throw new ApiError(code, issue?.message ?? (fallback === "invalid_query" ? "invalid query" : "invalid body"));
}

/**
 * The router's one input step: a route's declared `input` applied to the request. The query is given to its schema as
 * an object of each name's first value (as URLSearchParams.get reads it: `?w=24h&w=x` is `24h`), names the schema does
 * not declare are ignored (zod objects strip them); the body is read once (http/readBody.ts: size, media type, JSON,
 * depth) and given to its schema. Without `input.query` the handler gets the URLSearchParams; without `input.body`
 * the body is not read (a handler that reads its own input says why in `input.own`).
 */
export async function parseRouteInput(input: RouteInput | undefined, url: URL, req: IncomingMessage): Promise<{ query: unknown; body: unknown }> {
  let query: unknown = url.searchParams;
  if (input?.query) {
    const first: Record<string, string> = Object.create(null); // a `__proto__` parameter is a name like any other
    for (const [name, value] of url.searchParams) if (!Object.hasOwn(first, name)) first[name] = value;
    query = parseOrThrow(input.query, first, "invalid_query");
  }
  const body = input?.body ? parseOrThrow(input.body, await readJsonBody(req), "invalid_body") : undefined;
  return { query, body };
}
