import { GraphQLError } from "./graphqlJs.ts";
import type { Logger } from "pino";
import { AuthError } from "../auth/authenticate.ts";
import { ApiError } from "../errors.ts";
import { WebhookError } from "../webhooks/WebhookError.ts";

export const MASKED_MESSAGE = "Unexpected error.";

/**
 * Yoga's error mask: GraphQL errors raised on purpose (parse/validation, scalars, armor) pass; our typed ApiErrors
 * become GraphQL errors with `extensions.code` = the REST code; anything else is logged and masked as
 * `internal_error`.
 */
export function createMaskError(log: Logger) {
  return (error: unknown): Error => {
    const located = error instanceof GraphQLError ? error : null;
    const original = located ? located.originalError : error;
    const at = located ? { nodes: located.nodes, source: located.source, positions: located.positions, path: located.path } : {};
    if (located && (!original || original === located)) return located;
    if (original instanceof ApiError || original instanceof WebhookError || original instanceof AuthError) {
      return new GraphQLError(original.message, { ...at, extensions: { code: original.code } });
    }
    if (original instanceof GraphQLError) return new GraphQLError(original.message, { ...at, extensions: original.extensions });
    log.error({ err: original, path: located?.path }, "unexpected GraphQL resolver error");
    return new GraphQLError(MASKED_MESSAGE, { ...at, extensions: { code: "internal_error" } });
  };
}
