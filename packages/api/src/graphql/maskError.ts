import { GraphQLError, Kind } from "./graphqlJs.ts";
import type { Logger } from "pino";
import { ApiError, ERROR_STATUS, isErrorCode, type ErrorCode } from "../errors.ts";

export const MASKED_MESSAGE = "Unexpected error.";

/** The table's code for each upper-case code graphql-yoga (and graphql-armor) give their own errors. */
const LIBRARY_CODES: Record<string, ErrorCode> = {
  BAD_REQUEST: "bad_request",
  GRAPHQL_PARSE_FAILED: "graphql_parse_failed",
  GRAPHQL_VALIDATION_FAILED: "graphql_validation_failed",
  REQUEST_ENTITY_TOO_LARGE: "payload_too_large",
  OPERATION_RESOLUTION_FAILURE: "invalid_request",
  BAD_USER_INPUT: "invalid_request",
  INTERNAL_SERVER_ERROR: "internal_error",
};

/**
 * The table's code (errors.ts) for a GraphQL error's `extensions.code`: ours pass; a library's upper-case code becomes
 * its snake_case code (LIBRARY_CODES; any other: `invalid_request` below status 500, else `internal_error`).
 */
export function tableCode(code: unknown, status?: number): unknown {
  if (typeof code !== "string" || isErrorCode(code)) return code;
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) return code;
  return LIBRARY_CODES[code] ?? ((status ?? 400) < 500 ? "invalid_request" : "internal_error");
}

/** Gives `error` (in place) the table's code instead of a library's upper-case one; see tableCode. */
export function applyTableCode(error: { extensions?: Record<string, unknown> }): void {
  const extensions = error.extensions;
  if (!extensions) return;
  const code = tableCode(extensions.code, (extensions.http as { status?: number } | undefined)?.status);
  if (code !== extensions.code) extensions.code = code;
}

/**
 * The code of a refusal that arrives without one (docs/api.md, GraphQL errors): variables that do not fit their
 * declared types (graphql-js and graphql-jit point such errors at the variable definition; yoga's own parameter check
 * says "Invalid variables") are `invalid_variables`; any other error outside a field (an unknown operation name, a
 * request refused before execution) is `invalid_request`. Both answer 400. Errors inside a field (with a `path`) keep
 * what they have.
 */
function missingCode(error: GraphQLError): "invalid_variables" | "invalid_request" | null {
  if (typeof error.extensions?.code === "string" || error.path) return null;
  const variable = error.nodes?.[0]?.kind === Kind.VARIABLE_DEFINITION || error.message.startsWith('Variable "$') || error.message === "Invalid variables";
  return variable ? "invalid_variables" : "invalid_request";
}

/** `error` with a code (and its status) when it has none, the table's code when a library gave it one; see missingCode. */
export function withRequestCode(error: GraphQLError): GraphQLError {
  applyTableCode(error);
  const code = missingCode(error);
  if (!code) return error;
  const http = (error.extensions?.http ?? {}) as Record<string, unknown>;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    originalError: error.originalError ?? undefined,
    extensions: { ...error.extensions, code, http: { ...http, status: (http.status as number | undefined) ?? ERROR_STATUS[code] } },
  });
}

/**
 * Yoga's error mask: GraphQL errors raised on purpose (parse/validation, scalars, armor) pass, each with an
 * `extensions.code` (withRequestCode gives one to those that have none); our typed ApiErrors become GraphQL errors
 * with `extensions.code` = the REST code; anything else is logged and masked as `internal_error`.
 */
export function createMaskError(log: Logger) {
  return (error: unknown): Error => {
    const located = error instanceof GraphQLError ? error : null;
    const original = located ? located.originalError : error;
    const at = located ? { nodes: located.nodes, source: located.source, positions: located.positions, path: located.path } : {};
    if (located && (!original || original === located)) return withRequestCode(located);
    if (original instanceof ApiError) {
      return new GraphQLError(original.message, { ...at, extensions: { code: original.code } });
    }
    if (original instanceof GraphQLError) {
      // Inside a field: the resolver's or scalar's own message. Outside one (a variable's value refused by its scalar):
      // the located message, which names the variable.
      const message = located && !located.path ? located.message : original.message;
      return withRequestCode(new GraphQLError(message, { ...at, extensions: { ...original.extensions, ...located?.extensions } }));
    }
    log.error({ err: original, path: located?.path }, "unexpected GraphQL resolver error");
    return new GraphQLError(MASKED_MESSAGE, { ...at, extensions: { code: "internal_error" } });
  };
}
