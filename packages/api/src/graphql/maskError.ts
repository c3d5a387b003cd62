import { GraphQLError, Kind } from "./graphqlJs.ts";
import type { Logger } from "pino";
import { AuthError } from "../auth/authenticate.ts";
import { ApiError } from "../errors.ts";
import { WebhookError } from "../webhooks/WebhookError.ts";

export const MASKED_MESSAGE = "Unexpected error.";

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

/** `error` with a code (and status 400) when it has none; see missingCode. */
export function withRequestCode(error: GraphQLError): GraphQLError {
  const code = missingCode(error);
  if (!code) return error;
  const http = (error.extensions?.http ?? {}) as Record<string, unknown>;
  return new GraphQLError(error.message, {
    nodes: error.nodes, source: error.source, positions: error.positions, originalError: error.originalError ?? undefined,
    extensions: { ...error.extensions, code, http: { ...http, status: (http.status as number | undefined) ?? 400 } },
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
    if (original instanceof ApiError || original instanceof WebhookError || original instanceof AuthError) {
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
