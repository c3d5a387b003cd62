import { GraphQLError } from "./graphqlJs.ts";
import type { Plugin } from "graphql-yoga";
import { ERROR_STATUS } from "../errors.ts";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../http/readBody.ts";
import { applyTableCode } from "./maskError.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Refusals of the GraphQL HTTP request itself, coded like every other error (docs/api.md, GraphQL errors):
 * - a request parser that throws something other than a GraphQL error (a GET whose `variables` or `extensions` is not
 *   JSON: yoga's parser lets JSON.parse's SyntaxError through, which would be masked as `internal_error`) → 400
 *   `invalid_request`;
 * - parameters nested more than MAX_JSON_DEPTH levels deep (variables, extensions, a batch; POST or GET) → 400
 *   `invalid_body`, before graphql-js or armor walk them recursively;
 * - a request no parser takes (a POST that is neither JSON, GraphQL, form nor multipart; yoga answers a bare 415) →
 *   415 `unsupported_media_type` with a JSON body.
 * - armor's token limit is a parse error, and yoga marks parse errors as GraphQL-over-HTTP "spec" errors, which it
 *   answers with 200 under `application/json`: a `query_too_complex` error is unmarked again, so every armor limit
 *   is a 400 whatever the Accept header.
 * - every error's upper-case code of graphql-yoga (BAD_REQUEST, GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, …)
 *   becomes the table's snake_case code (maskError.ts, tableCode).
 * Placed after yoga's own parser plugins, so `requestParser` is the one they chose.
 */
export function useRequestErrors(): Plugin {
  return {
    onResultProcess({ result }) {
      for (const r of Array.isArray(result) ? result : [result]) {
        for (const e of (r as { errors?: readonly GraphQLError[] }).errors ?? []) {
          applyTableCode(e);
          const http = e.extensions?.http as { spec?: boolean } | undefined;
          if (e.extensions?.code === "query_too_complex" && http) http.spec = false;
        }
      }
    },
    onRequestParse({ requestParser, setRequestParser, endResponse, fetchAPI }) {
      if (!requestParser) {
        const body = JSON.stringify({
          errors: [
            { message: "send the GraphQL request as application/json (POST) or in the query string (GET)", extensions: { code: "unsupported_media_type" } },
          ],
        });
        return endResponse(new fetchAPI.Response(body, { status: ERROR_STATUS.unsupported_media_type, headers: { "content-type": JSON_TYPE } }));
      }
      setRequestParser(async (request) => {
        let params: Awaited<ReturnType<typeof requestParser>>;
        try {
          params = await requestParser(request);
        } catch (error) {
          if (error instanceof GraphQLError) throw error;
          throw new GraphQLError("the request's parameters could not be read: variables and extensions must be JSON objects", {
            extensions: { code: "invalid_request", http: { status: ERROR_STATUS.invalid_request } },
          });
        }
        // The bound of every JSON the API reads (http/readBody.ts): a body, or a GET's variables / extensions.
        if (exceedsJsonDepth(params)) {
          throw new GraphQLError(`the request is nested more than ${MAX_JSON_DEPTH} levels deep`, {
            extensions: { code: "invalid_body", http: { status: ERROR_STATUS.invalid_body } },
          });
        }
        return params;
      });
    },
  };
}
