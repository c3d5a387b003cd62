import type { GraphQLError } from "./graphqlJs.ts";
import { ERROR_STATUS } from "../errors.ts";

export type ArmorLimit = "max_depth" | "cost_limit" | "max_aliases" | "max_tokens" | "max_directives";

/**
 * A graphql-armor `onReject` handler (on /graphql and /graphql/stream): the limit's error, which armor throws without
 * a code, gets `extensions.code` `query_too_complex`, `extensions.limit` naming the limit, and status 400
 * (docs/api.md, GraphQL errors).
 */
export function rejectedBy(limit: ArmorLimit) {
  return (_context: unknown, error: GraphQLError): void => {
    const extensions = error.extensions as Record<string, unknown>;
    extensions.code = "query_too_complex";
    extensions.limit = limit;
    extensions.http = { status: ERROR_STATUS.query_too_complex };
  };
}
